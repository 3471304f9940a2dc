import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { releasedRuntimeEnv } from '../fixtures/runtime/fake-runtime-env';
import { movableClock } from '../support/fakes';
import { useFakeRuntimeApp } from '../support/use-app';
import { auditActions, createRun, runStatus, templateWithRoute } from '../handlers/workflow-support';

/*
 * Runs costed from the runtime (docs/costs.md): the released runtime's session of one real
 * transcript (test/fixtures/runtime/openclaw-2026.9.6/transcript_main.json, one `ev` per line)
 * under the key agent:main:main. Its four assistant messages each carry usage {input 1034,
 * output 56, cacheRead 200} and cost 0.004002, at 18:33:36.067, 18:33:47.356, 18:34:01.011 and
 * 18:34:02.365 (UTC, 2026-11-27). The dispatcher pass costs a finished run that reported nothing
 * with the messages written between its claim and its finish.
 */
const SESSION = 'b29b85b3-4446-48f0-9b8e-9f53ab26327d';
const KEY = 'agent:main:main';
const rows = JSON.parse(
  readFileSync(new URL('../fixtures/runtime/openclaw-2026.9.6/transcript_main.json', import.meta.url), 'utf8'),
) as Array<{ ev: string }>;

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'runtime-costs-state-'));
function writeSessions(agentId: string, index: string, transcripts: Record<string, string[]> = {}) {
  const dir = path.join(stateDir, 'agents', agentId, 'sessions');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'sessions.json'), index);
  for (const [id, lines] of Object.entries(transcripts)) writeFileSync(path.join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`);
}
writeSessions('main', JSON.stringify({ [KEY]: { sessionId: SESSION, updatedAt: 1795804442627 } }), { [SESSION]: rows.map((r) => r.ev) });
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const app = useFakeRuntimeApp(releasedRuntimeEnv({ RUNTIME_STATE_DIR: stateDir }));
const clock = movableClock('2026-11-27T18:33:00.000Z');
let workflowType: string;

beforeAll(async () => {
  workflowType = await templateWithRoute(app, { agent: 'main' });
});
beforeEach(async () => {
  app.ctx.deps.clock = clock;
  await app.db.query('DELETE FROM budgets');
  await app.db.query('DELETE FROM budget_events');
});

async function tick() {
  const res = await app.http('POST', '/api/workflow-runs/dispatcher/tick');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { runtimeUsage: Record<string, unknown> };
}

/**
 * A run claimed by `session` at `claimAt` and completed at `finishAt`, with `usage` if its agent
 * reported any. Its dispatch is a dispatcher pass: runs finished before it are costed there.
 */
async function finishedRun(claimAt: string, finishAt: string, options: { session?: string; usage?: Record<string, unknown> } = {}) {
  const session = options.session ?? KEY;
  clock.set(claimAt);
  const run = await createRun(app, workflowType);
  await tick();
  const claim = await app.http('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'main', session_id: session } });
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  clock.set(finishAt);
  const done = await app.http('POST', `/api/workflow-runs/${run.id}/complete`, { body: { session_id: session, ...options.usage } });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return run.id;
}

async function checked(runId: string) {
  const { rows: found } = await app.db.query<{ outcome: string; messages: number }>(
    'SELECT outcome, messages FROM run_runtime_usage WHERE run_id = $1',
    [runId],
  );
  return found[0];
}

describe('a finished run whose agent reported no usage', () => {
  it('takes the usage and cost of the assistant messages its session holds between its claim and its finish, marked runtime, audited once', async () => {
    const runId = await finishedRun('2026-11-27T18:33:40.000Z', '2026-11-27T18:34:10.000Z');
    const pass = await tick();
    expect(pass.runtimeUsage).toMatchObject({ costed: 1 });
    expect(await runStatus(app, runId)).toMatchObject({
      cost_source: 'runtime',
      cost_estimate: 0.012006,
      currency: 'USD',
      model_id: 'mock-1',
      // the runtime's input leaves out the cache reads, which ours counts in
      input_tokens: 3702,
      output_tokens: 168,
      cached_tokens: 600,
      cache_write_tokens: 0,
      billing: 'metered',
    });
    const run = await app.http('GET', `/api/workflow-runs/${runId}`);
    expect(run.body).toMatchObject({ cost_source: 'runtime', cost_estimate: 0.012006, reported_at: '2026-11-27T18:34:02.365Z' });
    expect(await checked(runId)).toEqual({ outcome: 'costed', messages: 3 });

    await tick();
    expect(await runStatus(app, runId)).toMatchObject({ cost_estimate: 0.012006, cost_source: 'runtime' });
    expect((await auditActions(app, runId)).filter((a) => a.action === 'usage_from_runtime')).toEqual([
      { action: 'usage_from_runtime', actor: 'system' },
    ]);
  });

  it('counts in a budget, in the cost summary and rollup, and an agent that reported is never counted twice', async () => {
    await app.db.query('DELETE FROM workflow_runs');
    const watch = await app.http('POST', '/api/budgets', {
      body: { name: 'main-daily', scope: 'agent', scope_id: 'main', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' },
    });
    expect(watch.status, JSON.stringify(watch.body)).toBe(201);
    const fromRuntime = await finishedRun('2026-11-27T18:33:30.000Z', '2026-11-27T18:33:40.000Z');
    const reported = await finishedRun('2026-11-27T18:33:30.000Z', '2026-11-27T18:34:10.000Z', {
      usage: { input_tokens: 5000, output_tokens: 500, cost_estimate: 0.25, model_id: 'mock-1' },
    });
    // the dispatch of the second run already ran a pass, which costed the first
    await tick();
    expect(await runStatus(app, fromRuntime)).toMatchObject({
      cost_source: 'runtime',
      cost_estimate: 0.004002,
      input_tokens: 1234,
      output_tokens: 56,
    });
    expect(await runStatus(app, reported)).toMatchObject({ cost_source: 'reported', cost_estimate: 0.25, input_tokens: 5000 });
    expect((await auditActions(app, reported)).map((a) => a.action)).not.toContain('usage_from_runtime');
    await tick();

    const budgets = await app.http('GET', '/api/budgets');
    expect(budgets.body.budgets.find((b: { name: string }) => b.name === 'main-daily').current_spend).toMatchObject({
      usd: 0.254002,
      tokens: 1290 + 5500,
      runs: 2,
    });
    const summary = await app.http('GET', '/api/costs/summary?days=1');
    expect(summary.body.today).toMatchObject({ cost: 0.254002, runs: 2, tokens: { input: 6234, output: 556 } });
    const rollup = await app.http('GET', '/api/costs/rollup?group_by=agent&days=1');
    expect(rollup.status, JSON.stringify(rollup.body)).toBe(200);
    expect(JSON.stringify(rollup.body)).toContain('0.254002');
  });

  it('counts toward a hard stop: a live run of the same agent is stopped by what the runtime reported for a finished one', async () => {
    await app.db.query('DELETE FROM workflow_runs');
    clock.set('2026-11-27T18:33:30.000Z');
    const finished = await createRun(app, workflowType);
    const live = await createRun(app, workflowType);
    await tick();
    const liveSession = 'agent:main:task:live-one';
    for (const [id, session] of [
      [finished.id, KEY],
      [live.id, liveSession],
    ]) {
      const claim = await app.http('POST', `/api/workflow-runs/${id}/claim`, { body: { agent_id: 'main', session_id: session } });
      expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    }
    const cap = await app.http('POST', '/api/budgets', {
      body: { name: 'main-hard', scope: 'agent', scope_id: 'main', period: 'daily', cap_usd: 0.01, action_on_exceed: 'hard_stop' },
    });
    expect(cap.status, JSON.stringify(cap.body)).toBe(201);
    clock.set('2026-11-27T18:34:10.000Z');
    expect((await app.http('POST', `/api/workflow-runs/${finished.id}/complete`, { body: { session_id: KEY } })).status).toBe(200);
    const before = await app.http('POST', `/api/workflow-runs/${live.id}/heartbeat`, {
      body: { session_id: liveSession, cost_estimate: 0.001 },
    });
    expect(before.body).toMatchObject({ ok: true });

    await tick();
    expect(await runStatus(app, finished.id)).toMatchObject({ cost_source: 'runtime', cost_estimate: 0.016008 });
    const after = await app.http('POST', `/api/workflow-runs/${live.id}/heartbeat`, {
      body: { session_id: liveSession, cost_estimate: 0.002 },
    });
    expect(after.body).toMatchObject({ stop: true, reason: 'budget_hard_stop', run_id: live.id, status: 'cancelled' });
    expect(after.body.budgets).toEqual([expect.objectContaining({ name: 'main-hard', spend_usd: 0.018008 })]);
  });

  it('is replaced whole, never added to, by a usage report its agent sends later', async () => {
    const runId = await finishedRun('2026-11-27T18:33:30.000Z', '2026-11-27T18:33:40.000Z');
    await tick();
    expect(await runStatus(app, runId)).toMatchObject({ cost_source: 'runtime', cached_tokens: 200 });
    const late = await app.http('PATCH', `/api/workflow-runs/${runId}`, { body: { output_tokens: 70, cost_estimate: 0.01 } });
    expect(late.status, JSON.stringify(late.body)).toBe(200);
    expect(await runStatus(app, runId)).toMatchObject({
      cost_source: 'reported',
      cost_estimate: 0.01,
      output_tokens: 70,
      input_tokens: null,
      cached_tokens: null,
      model_id: null,
    });
  });

  it('keeps no usage when its session holds no assistant message in its time, or the runtime knows no such session, and is read once', async () => {
    const quiet = await finishedRun('2026-11-27T18:35:00.000Z', '2026-11-27T18:36:00.000Z');
    const unknown = await finishedRun('2026-11-27T18:33:30.000Z', '2026-11-27T18:34:10.000Z', { session: 'agent:main:task:never-seen' });
    await tick();
    for (const id of [quiet, unknown]) {
      expect(await runStatus(app, id)).toMatchObject({ cost_estimate: null, input_tokens: null, cost_source: null });
      expect((await auditActions(app, id)).map((a) => a.action)).not.toContain('usage_from_runtime');
    }
    expect(await checked(quiet)).toEqual({ outcome: 'no_usage', messages: 0 });
    expect(await checked(unknown)).toEqual({ outcome: 'no_session', messages: 0 });
    expect((await tick()).runtimeUsage).toMatchObject({ examined: 0 });
  });

  it('waits for a runtime that cannot be read, and is costed by the first pass after it answers again', async () => {
    writeSessions('flaky', '{ this is not json');
    const runId = await finishedRun('2026-11-27T18:33:30.000Z', '2026-11-27T18:34:10.000Z', { session: 'agent:flaky:main' });
    const pass = await tick();
    expect(pass.runtimeUsage).toMatchObject({ unavailable: expect.stringContaining('flaky') });
    expect(await checked(runId)).toBeUndefined();
    expect(await runStatus(app, runId)).toMatchObject({ cost_source: null, cost_estimate: null });

    writeSessions('flaky', JSON.stringify({ 'agent:flaky:main': { sessionId: SESSION, updatedAt: 1795804442627 } }), {
      [SESSION]: rows.map((r) => r.ev),
    });
    expect((await tick()).runtimeUsage).toMatchObject({ costed: 1 });
    expect(await runStatus(app, runId)).toMatchObject({ cost_source: 'runtime', cost_estimate: 0.016008 });
  });
});
