import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startDispatcherTimer } from '../../infra/dispatcher/timer';
import { setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { createRun, runStatus, templateWithRoute } from '../handlers/workflow-support';
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * Wakes through the runtime CLI (the fake executable), sent by the runner's dispatcher timer: to the
 * main session of the run's target agent, and after the tick rather than inside it.
 */
const app = useFakeRuntimeApp();
let callLog: string;
let gate: string;

beforeAll(async () => {
  callLog = path.join(app.dataDir, 'wake-calls.log');
  gate = path.join(app.dataDir, 'wake-gate');
  process.env.FAKE_RUNTIME_CALL_LOG = callLog;
  process.env.FAKE_RUNTIME_GATE_FILE = gate;
  await app.db.query('DELETE FROM workflow_runs');
  await app.db.query('DELETE FROM workflow_agent_routing');
});

async function wakeCalls(): Promise<string[][]> {
  const text = await readFile(callLog, 'utf8').catch(() => '');
  return text.trim()
    ? text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string[])
        .filter((c) => c[0] === 'system')
    : [];
}

/** The wake outcomes the metrics counted so far (fleet_dispatcher_runs_total, woken and wake_failed). */
async function wokenCount(): Promise<{ woken: number; failed: number }> {
  const res = await app.http('GET', '/api/metrics');
  const counter = (outcome: string) =>
    Number(new RegExp(`^fleet_dispatcher_runs_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(res.text)?.[1] ?? 0);
  return { woken: counter('woken'), failed: counter('wake_failed') };
}

describe('dispatcher wakes', () => {
  it('the timer tick does not wait for a slow runtime; the wake still reaches the target agent main session', async () => {
    await rm(gate, { force: true });
    // the runtime answers the wake only once the test opens the gate: as slow as it needs to be
    setFakeMode('gate', 'system event');
    const type = await templateWithRoute(app, { agent: 'writer' });
    const run = await createRun(app, type);

    const wokenBefore = await wokenCount();
    const timer = startDispatcherTimer(app.ctx, 25);
    try {
      // the tick that dispatched the run is stored with the gate still closed: it did not wait for its wake
      await vi.waitFor(
        async () => {
          const { rows } = await app.db.query<{ summary: { dispatched: number; wakesInBackground: number; woken: number } }>(
            `SELECT summary FROM dispatcher_ticks WHERE source = 'timer' AND (summary->>'dispatched')::int = 1`,
          );
          expect(rows[0]?.summary).toMatchObject({ dispatched: 1, wakesInBackground: 1, woken: 0 });
        },
        { timeout: 20_000, interval: 25 },
      );
      expect(await runStatus(app, run.id)).toMatchObject({ status: 'dispatched', target_agent_id: 'writer' });
      // and the wake is on its way, to agent:writer:main
      await vi.waitFor(async () => expect(await wakeCalls()).toHaveLength(1), { timeout: 20_000, interval: 25 });
      const [wake] = await wakeCalls();
      expect(wake!.slice(0, 3)).toEqual(['system', 'event', '--text']);
      expect(wake![3]).toContain(run.id);
      expect(wake!.slice(4)).toEqual(['--mode', 'now', '--session-key', 'agent:writer:main', '--json']);
    } finally {
      await writeFile(gate, 'open');
      // stopping waits for the wakes in flight: the answered wake is done when stop resolves
      await timer.stop();
    }
    expect(await wokenCount()).toEqual({ woken: wokenBefore.woken + 1, failed: wokenBefore.failed });
  });
});
