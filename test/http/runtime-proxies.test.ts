import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();

describe('/api/runtime/* proxies over HTTP against the fake runtime', () => {
  it('GET /api/runtime/health returns the runtime health with source runtime-cli', async () => {
    const res = await app.http('GET', '/api/runtime/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      source: 'runtime-cli',
      ok: true,
      channels: { slack: { ok: true } },
      agents: [{ id: 'main' }, { id: 'writer' }],
      heartbeatSeconds: 7200,
      defaultAgentId: 'main',
    });
  });

  it('GET /api/runtime/health is a 502 for each failure mode of the CLI, naming the failure kind', async () => {
    for (const [mode, failure] of [
      ['exit', 'failed'],
      ['garbage', 'bad_output'],
      ['error-payload', 'failed'],
      ['not-ok', 'failed'],
    ] as const) {
      setFakeMode(mode);
      const res = await app.http('GET', '/api/runtime/health');
      expect(res.status, mode).toBe(502);
      expect(res.body.failure, mode).toBe(failure);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('GET /api/runtime/tasks forwards the runtime and status filters and counts the result', async () => {
    const all = await app.http('GET', '/api/runtime/tasks');
    expect(all.body).toMatchObject({ source: 'runtime-cli', count: 3 });
    const filtered = await app.http('GET', '/api/runtime/tasks?runtime=subagent&status=failed');
    expect(filtered.status).toBe(200);
    expect(filtered.body.count).toBe(1);
    expect(filtered.body.tasks[0].id).toBe('rt-3');
  });

  it('refuses filter values that would read as CLI flags with 400, and never hands an unknown query parameter to the CLI', async () => {
    expect((await app.http('GET', '/api/runtime/tasks?status=--apply')).status).toBe(400);
    expect((await app.http('GET', '/api/runtime/tasks?status=a%20b')).status).toBe(400);
    const unknown = await app.http('GET', '/api/runtime/tasks?owner=--apply');
    expect(unknown.status).toBe(200);
    expect(unknown.headers['x-ignored-params']).toBe('owner');
    expect(JSON.stringify(unknown.body)).not.toContain('--apply');
  });

  it('GET /api/runtime/tasks/audit and /api/runtime/agents pass the lists through', async () => {
    const audit = await app.http('GET', '/api/runtime/tasks/audit');
    expect(audit.body).toEqual({ source: 'runtime-cli', stale: [{ id: 'rt-1', idleMinutes: 95 }], broken: [] });
    const agents = await app.http('GET', '/api/runtime/agents');
    expect(agents.body.source).toBe('runtime-cli');
    expect(agents.body.agents.map((a: { id: string }) => a.id)).toEqual(['main', 'writer']);
  });

  it('POST /api/runtime/memory/index defaults to agent main and leaves an audit row', async () => {
    const res = await app.http('POST', '/api/runtime/memory/index');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ source: 'runtime-cli', success: true, agentId: 'main', result: { agent: 'main', indexed: 42 } });
    const writer = await app.http('POST', '/api/runtime/memory/index?agent=writer');
    expect(writer.body.agentId).toBe('writer');
    const { rows } = await app.db.query(`SELECT actor, entity_id FROM audit_log WHERE action = 'runtime.memory_index' ORDER BY id`);
    expect(rows).toEqual([
      { actor: 'dashboard-operator', entity_id: 'main' },
      { actor: 'dashboard-operator', entity_id: 'writer' },
    ]);
  });

  it('memory promote: GET lists candidates (limit default 10), POST applies and is audited', async () => {
    const candidates = await app.http('GET', '/api/runtime/memory/promote?agent=writer&limit=2');
    expect(candidates.body).toEqual({
      source: 'runtime-cli',
      agentId: 'writer',
      candidates: [
        { id: 'mem-1', agent: 'writer' },
        { id: 'mem-2', agent: 'writer' },
      ],
    });
    const applied = await app.http('POST', '/api/runtime/memory/promote', { body: { agent: 'main', limit: 1 } });
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({ source: 'runtime-cli', success: true, agentId: 'main', promoted: [{ id: 'mem-1', agent: 'main' }] });
    const { rows } = await app.db.query(`SELECT new_value FROM audit_log WHERE action = 'runtime.memory_promote'`);
    expect(rows).toEqual([{ new_value: { agentId: 'main', limit: 1, promotedCount: 1 } }]);
  });

  it('a failed memory call leaves no audit row and answers 502', async () => {
    setFakeMode('exit', 'memory');
    const res = await app.http('POST', '/api/runtime/memory/promote', { body: { agent: 'writer', limit: 7 } });
    expect(res.status).toBe(502);
    const { rowCount } = await app.db.query(`SELECT 1 FROM audit_log WHERE new_value->>'limit' = '7'`);
    expect(rowCount).toBe(0);
  });

  it('an agent the runtime does not know is a 404, without calling memory, and audits nothing', async () => {
    setFakeMode('exit', 'memory');
    for (const [method, target, body] of [
      ['POST', '/api/runtime/memory/promote', { agent: 'no-such-agent' }],
      ['GET', '/api/runtime/memory/promote?agent=no-such-agent', undefined],
      ['POST', '/api/runtime/memory/index?agent=no-such-agent', undefined],
    ] as const) {
      const res = await app.http(method, target, { body });
      expect(res.status, target).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', error: 'no agent no-such-agent in the runtime' });
    }
    expect((await app.db.query(`SELECT 1 FROM audit_log WHERE entity_id = 'no-such-agent'`)).rowCount).toBe(0);
  });

  it('refuses hostile agent ids and out-of-range limits with 400', async () => {
    for (const agent of ['..', '../etc', 'a/b', '-x', '%2Fetc']) {
      const res = await app.http('GET', `/api/runtime/memory/promote?agent=${agent}`);
      expect(res.status, agent).toBe(400);
      expect(res.body.error).toMatch(/agent/);
    }
    for (const limit of ['0', '-1', 'ten', '1e9', '1001']) {
      expect((await app.http('GET', `/api/runtime/memory/promote?limit=${limit}`)).status, limit).toBe(400);
    }
  });

  it('random bodies at POST /api/runtime/memory/promote never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        const res = await app.call('POST', '/api/runtime/memory/promote', { raw: JSON.stringify(body) ?? '' });
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 25 },
    );
  });
});
