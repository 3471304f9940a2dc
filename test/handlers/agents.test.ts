import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let projectId: string;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  projectId = (await app.call('POST', '/api/projects', { body: { name: 'Agents' } })).body.id;
});

async function newTask() {
  return (await app.call('POST', '/api/tasks', { body: { project_id: projectId, title: 'claimable' } })).body as Record<string, any>;
}

describe('claim and release', () => {
  it('claims an unlocked task (locked_at, locked_by set), refuses a second claim with 409 and an unknown task with 404', async () => {
    const task = await newTask();
    const claimed = await app.call('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: 'alpha' } });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ id: task.id, locked_by: 'alpha', locked_at: expect.any(String) });
    const again = await app.call('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: 'beta' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/alpha/);
    expect((await app.call('POST', '/api/agent/claim', { body: { task_id: UNKNOWN, agent_name: 'a' } })).status).toBe(404);
    const audit = await app.db.query(`SELECT action, actor FROM audit_log WHERE task_id = $1 ORDER BY id`, [task.id]);
    expect(audit.rows).toEqual([
      { action: 'created', actor: 'dashboard-operator' },
      { action: 'claimed', actor: 'alpha' },
    ]);
  });

  it('gives exactly one of many concurrent claims the lock', async () => {
    const task = await newTask();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => app.call('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: `agent-${i}` } })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(15);
    const row = (await app.db.query<{ locked_by: string }>('SELECT locked_by FROM tasks WHERE id = $1', [task.id])).rows[0];
    expect(row?.locked_by).toBe(winners[0]!.body.locked_by);
    const claims = await app.db.query(`SELECT 1 FROM audit_log WHERE task_id = $1 AND action = 'claimed'`, [task.id]);
    expect(claims.rowCount).toBe(1);
  });

  it('releases only a lock held by the named agent (404 otherwise); without agent_name the operator releases any lock', async () => {
    const task = await newTask();
    await app.call('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: 'holder' } });
    const wrong = await app.call('POST', '/api/agent/release', { body: { task_id: task.id, agent_name: 'intruder' } });
    expect(wrong.status).toBe(404);
    const right = await app.call('POST', '/api/agent/release', { body: { task_id: task.id, agent_name: 'holder' } });
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ released: true });
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: task.id, agent_name: 'holder' } })).status).toBe(404);
    await app.call('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: 'second' } });
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: task.id } })).status).toBe(200);
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: task.id } })).status).toBe(404);
    expect((await app.call('POST', '/api/agent/release', { body: { task_id: UNKNOWN } })).status).toBe(404);
    const row = (await app.db.query('SELECT locked_at, locked_by FROM tasks WHERE id = $1', [task.id])).rows[0];
    expect(row).toEqual({ locked_at: null, locked_by: null });
  });

  it('does not let a soft-deleted task be claimed', async () => {
    const task = await newTask();
    await app.call('DELETE', `/api/tasks/${task.id}`);
    expect((await app.call('POST', '/api/agent/claim', { body: { task_id: task.id, agent_name: 'a' } })).status).toBe(404);
  });

  it('refuses malformed claim and release bodies with 400', async () => {
    for (const body of [
      undefined,
      {},
      { task_id: 'x', agent_name: 'a' },
      { task_id: UNKNOWN },
      { task_id: UNKNOWN, agent_name: '' },
      { task_id: UNKNOWN, agent_name: 'a', extra: 1 },
    ]) {
      expect((await app.call('POST', '/api/agent/claim', { body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await app.call('POST', '/api/agent/release', { body: { agent_name: 'a' } })).status).toBe(400);
  });
});

describe('heartbeats and liveness', () => {
  it('lists agents online, offline after the configured silence, and error when the agent says so', async () => {
    const clock = movableClock('2032-03-01T00:00:00.000Z');
    const previous = app.ctx.deps.clock;
    app.ctx.deps.clock = clock;
    try {
      expect((await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: 'quiet', status: 'online' } })).body).toEqual({
        ok: true,
      });
      clock.advance(200_000);
      await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: 'lively', status: 'online', metadata: { version: '1.2' } } });
      await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: 'broken', status: 'error' } });
      clock.advance(200_000);
      const res = await app.call('GET', '/api/agents/status');
      expect(res.status).toBe(200);
      const byName = Object.fromEntries(res.body.agents.map((a: any) => [a.agent_name, a]));
      expect(byName.quiet).toMatchObject({ status: 'offline', reported_status: 'online', last_seen_at: '2032-03-01T00:00:00.000Z' });
      expect(byName.lively).toMatchObject({ status: 'online', metadata: { version: '1.2' } });
      expect(byName.broken.status).toBe('error');
      const strict = await app.call('GET', '/api/agents/status?offline_after_seconds=60');
      expect(strict.body.agents.every((a: any) => a.status === 'offline')).toBe(true);
      expect((await app.call('GET', '/api/agents/status?offline_after_seconds=0')).status).toBe(400);
      const events = await app.db.query(
        `SELECT name, channel, payload FROM event_outbox WHERE name = 'agent-status-changed' AND payload->>'agent' = 'broken'`,
      );
      expect(events.rows).toEqual([
        { name: 'agent-status-changed', channel: 'stream', payload: { agent: 'broken', status: 'error', previous: null } },
      ]);
      const audit = await app.db.query(`SELECT action, actor FROM audit_log WHERE entity_type = 'agent' AND entity_id = 'lively'`);
      expect(audit.rows).toEqual([{ action: 'heartbeat', actor: 'lively' }]);
    } finally {
      app.ctx.deps.clock = previous;
    }
  });

  it('refuses heartbeats without agent_name or with an unknown status', async () => {
    expect((await app.call('POST', '/api/agents/heartbeat', { body: { status: 'online' } })).status).toBe(400);
    const bad = await app.call('POST', '/api/agents/heartbeat', { body: { agent_name: 'x', status: 'sleepy' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/status/);
  });

  it('never answers 5xx to random claim, release and heartbeat bodies', async () => {
    const task = await newTask();
    const body = fc.oneof(
      fc.record(
        {
          task_id: fc.oneof(fc.constant(task.id), fc.string(), fc.uuid()),
          agent_name: fc.oneof(fc.string(), fc.integer()),
          status: fc.string(),
          metadata: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/agent/claim', '/api/agent/release', '/api/agents/heartbeat'), body, async (path, b) => {
        const res = await app.call('POST', path, { body: b });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.error).toBe('string');
      }),
      { numRuns: 80 },
    );
  });
});
