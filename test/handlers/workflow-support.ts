import { beforeEach, expect } from 'vitest';
import { movableClock, recordingRuntime } from '../support/fakes';
import type { TestApp } from '../support/test-app';
import { useTestApp } from '../support/use-app';

/** Shared arrangement for the workflow engine's tests: template, route, clock and runtime fakes. */

export function fakeTime(app: TestApp, start = '2026-11-01T12:00:00.000Z') {
  const clock = movableClock(start);
  app.ctx.deps.clock = clock;
  return clock;
}

export function fakeRuntime(app: TestApp, answer?: Parameters<typeof recordingRuntime>[0]) {
  const runtime = recordingRuntime(answer);
  app.ctx.deps.runtime = runtime;
  return runtime;
}

let counter = 0;
export function uniqueName(prefix = 'wf'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
}

/** A template with the given steps and a routing entry to `agent`. */
export async function templateWithRoute(
  app: TestApp,
  options: { steps?: unknown[]; agent?: string; priority?: number; timeout?: number } = {},
) {
  const name = uniqueName();
  const res = await app.call('POST', '/api/workflow-templates', { body: { name, steps: options.steps ?? ['draft', 'review', 'publish'] } });
  expect(res.status).toBe(201);
  await app.db.query('INSERT INTO workflow_agent_routing (workflow_type, agent_id, priority, timeout_minutes) VALUES ($1, $2, $3, $4)', [
    name,
    options.agent ?? 'writer',
    options.priority ?? 0,
    options.timeout ?? 60,
  ]);
  return name;
}

export async function createRun(app: TestApp, workflowType: string, body: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: workflowType, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; status: string };
}

export async function tick(app: TestApp) {
  const res = await app.call('POST', '/api/workflow-runs/dispatcher/tick');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function runStatus(app: TestApp, id: string) {
  const { rows } = await app.db.query<Record<string, unknown>>('SELECT * FROM workflow_runs WHERE id = $1', [id]);
  return rows[0]!;
}

/** A run dispatched by a tick and claimed by `session`. */
export async function claimedRun(app: TestApp, workflowType: string, session = `agent:writer:subagent:${uniqueName('s')}`) {
  const run = await createRun(app, workflowType);
  await tick(app);
  const claim = await app.call('POST', `/api/workflow-runs/${run.id}/claim`, { body: { agent_id: 'writer', session_id: session } });
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  return { id: run.id, session };
}

export async function auditActions(app: TestApp, entityId: string) {
  const { rows } = await app.db.query<{ action: string; actor: string }>(
    'SELECT action, actor FROM audit_log WHERE entity_id = $1 ORDER BY id',
    [entityId],
  );
  return rows;
}

/**
 * The workflow files' app: useTestApp, and before each test a clock standing still at
 * 2026-11-01T12:00Z and an in-process runtime that answers every call with ok.
 */
/** No runs, routes or dispatch controls: a dispatch test starts from an empty queue. */
export async function emptyDispatchQueue(app: TestApp): Promise<void> {
  await app.db.query('DELETE FROM workflow_runs');
  await app.db.query('DELETE FROM workflow_agent_routing');
  await app.db.query('DELETE FROM agent_dispatch_controls');
}

/**
 * The file's app for workflow tests: every test starts on a fresh fixed clock and a recording
 * runtime; with `emptyQueue`, also with no runs, routes or dispatch controls left by earlier tests.
 * `clock()` is the current test's clock.
 */
export function useWorkflowApp(options: { emptyQueue?: boolean } = {}): TestApp & { clock(): ReturnType<typeof fakeTime> } {
  const app = useTestApp();
  let clock: ReturnType<typeof fakeTime> | undefined;
  beforeEach(async () => {
    clock = fakeTime(app);
    fakeRuntime(app);
    if (options.emptyQueue) await emptyDispatchQueue(app);
  });
  const current = () => {
    if (!clock) throw new Error('the workflow clock is set in beforeEach: use it inside a test');
    return clock;
  };
  return new Proxy(app, { get: (target, key) => (key === 'clock' ? current : Reflect.get(target, key)) }) as TestApp & {
    clock(): ReturnType<typeof fakeTime>;
  };
}
