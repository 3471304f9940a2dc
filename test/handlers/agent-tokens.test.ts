import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { routeKeyOf, routes } from '../../handlers/routes';
import { resetConfig } from '../../infra/config';
import { useTestApp } from '../support/use-app';
import { createRun, fakeRuntime, fakeTime, templateWithRoute, tick } from './workflow-support';

/** Agents' own tokens bind who a request acts as, and what it may touch. */
const OPERATOR = 'operator-token-77c1e2';
const app = useTestApp({ env: { DASHBOARD_AUTH_TOKEN: OPERATOR } });
const operator = { headers: { authorization: `Bearer ${OPERATOR}` } };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeEach(() => {
  fakeTime(app, '2026-11-20T12:00:00.000Z');
  fakeRuntime(app);
});

async function mint(body: Record<string, unknown>) {
  const res = await app.call('POST', '/api/agent-tokens', { ...operator, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; token: string; agent_id: string; scopes: string[] };
}

/** A run routed to `agent` and dispatched, arranged by the operator (the helpers send no token: dev mode for the while). */
async function dispatchedRunFor(agent: string) {
  delete process.env.DASHBOARD_AUTH_TOKEN;
  resetConfig();
  try {
    const type = await templateWithRoute(app, { agent });
    const run = await createRun(app, type);
    await tick(app);
    return run.id;
  } finally {
    process.env.DASHBOARD_AUTH_TOKEN = OPERATOR;
    resetConfig();
  }
}

describe('managing agent tokens (operator)', () => {
  it('answers the token once, stores only its digest, and lists tokens without secrets', async () => {
    const created = await mint({ agent_id: 'writer', label: 'laptop', expires_at: '2027-01-01T00:00:00Z' });
    expect(created.token).toMatch(/^fta_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      agent_id: 'writer',
      label: 'laptop',
      scopes: ['agent'],
      status: 'active',
      revoked_at: null,
      created_by: 'dashboard-operator',
    });
    const listed = await app.call('GET', '/api/agent-tokens', operator);
    expect(listed.status).toBe(200);
    const entry = listed.body.tokens.find((t: { id: string }) => t.id === created.id);
    expect(entry).toMatchObject({ agent_id: 'writer', label: 'laptop', status: 'active' });
    expect(JSON.stringify(listed.body)).not.toContain(created.token);
    expect(Object.keys(entry)).not.toContain('token');
    expect(Object.keys(entry)).not.toContain('digest');
    // nowhere in the database: not the token, and the digest only in its own row
    for (const table of ['agent_tokens', 'audit_log', 'entity_snapshots', 'event_outbox']) {
      const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE '%' || $1 || '%'`, [
        created.token,
      ]);
      expect(rows[0]!.n, table).toBe(0);
    }
    const audit = await app.db.query<{ action: string; new_value: Record<string, unknown> }>(
      `SELECT action, new_value FROM audit_log WHERE entity_id = $1`,
      [created.id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['created']);
    expect(Object.keys(audit.rows[0]!.new_value)).not.toContain('digest');
  });

  it('refuses a body it cannot honour with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /agent_id/],
      [{ agent_id: 'ops-bot' }, /agent_id: names an operator/],
      [{ agent_id: 'dashboard-operator' }, /agent_id: names an operator/],
      [{ agent_id: 'release-director' }, /agent_id: names an operator/],
      [{ agent_id: 'writer', scopes: [] }, /scopes: must name at least one scope/],
      [{ agent_id: 'writer', scopes: ['admin'] }, /scopes\.0: must be one of agent, read/],
      [{ agent_id: 'writer', scopes: ['read', 'read'] }, /scopes: names a scope twice/],
      [{ agent_id: 'writer', expires_at: 'tomorrow' }, /expires_at: must be an ISO 8601 timestamp/],
      [{ agent_id: 'writer', expires_at: '2026-11-19T00:00:00Z' }, /expires_at: must be in the future/],
      [{ agent_id: 'writer', token: 'mine' }, /token/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', '/api/agent-tokens', { ...operator, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
  });

  it('revokes at once: the next request with the token is 401; revoking again changes nothing; an unknown id is 404', async () => {
    const { id, token } = await mint({ agent_id: 'writer' });
    const unused = (await app.call('GET', '/api/agent-tokens', operator)).body.tokens.find((t: { id: string }) => t.id === id);
    expect(unused.last_used_at).toBeNull();
    expect((await app.call('GET', '/api/tasks', { headers: bearer(token) })).status).toBe(200);
    // the listing says when it was last presented
    const used = (await app.call('GET', '/api/agent-tokens', operator)).body.tokens.find((t: { id: string }) => t.id === id);
    expect(used.last_used_at).toBe('2026-11-20T12:00:00.000Z');
    const revoked = await app.call('DELETE', `/api/agent-tokens/${id}`, operator);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id, status: 'revoked' });
    const refused = await app.call('GET', '/api/tasks', { headers: bearer(token) });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/revoked/);
    expect((await app.call('DELETE', `/api/agent-tokens/${id}`, operator)).body).toMatchObject({ status: 'revoked' });
    const actions = await app.db.query<{ action: string }>('SELECT action FROM audit_log WHERE entity_id = $1 ORDER BY id', [id]);
    expect(actions.rows.map((r) => r.action)).toEqual(['created', 'revoked']);
    expect((await app.call('DELETE', `/api/agent-tokens/${randomUUID()}`, operator)).status).toBe(404);
    expect((await app.call('DELETE', '/api/agent-tokens/nope', operator)).status).toBe(400);
  });

  it('refuses an expired token and a made-up one with 401', async () => {
    const { token } = await mint({ agent_id: 'writer', expires_at: '2026-11-20T13:00:00Z' });
    expect((await app.call('GET', '/api/tasks', { headers: bearer(token) })).status).toBe(200);
    fakeTime(app, '2026-11-20T13:00:00.000Z');
    expect((await app.call('GET', '/api/tasks', { headers: bearer(token) })).status).toBe(401);
    expect((await app.call('GET', '/api/tasks', { headers: bearer(`fta_${'A'.repeat(43)}`) })).status).toBe(401);
  });
});

describe('what an agent token may touch', () => {
  const concrete = (path: string, agent: string) =>
    path.replace(/:agent\b/g, agent).replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');

  it("answers 403 {error: forbidden, reason} on every route of the table that is not an agent's, and writes nothing", async () => {
    const { token } = await mint({ agent_id: 'writer' });
    const { rows: before } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log');
    const checked: string[] = [];
    for (const route of routes.filter((r) => !r.public && !r.runnerOnly)) {
      const key = routeKeyOf(route);
      const res = await app.call(route.method, concrete(route.path, 'writer'), {
        headers: bearer(token),
        body: { session_id: 'agent:writer:subagent:t' },
      });
      if (route.agent) {
        expect([401, 403], key).not.toContain(res.status);
      } else {
        expect(res.status, key).toBe(403);
        expect(res.body, key).toMatchObject({ error: 'forbidden', reason: expect.stringContaining(key) });
        checked.push(key);
      }
    }
    // the operator's own surfaces are among them
    expect(checked).toEqual(
      expect.arrayContaining([
        'POST /api/agent-tokens',
        'PATCH /api/settings',
        'POST /api/restore/apply',
        'POST /api/budgets',
        'PUT /api/workflow-routing/{workflowType}',
        'POST /api/import',
        'POST /api/snapshots',
        // the operator console's own reads (docs/console-api.md)
        'GET /api/inbox',
        'GET /api/tasks/search',
        'GET /api/views/board/as-of',
        'GET /api/views/runs',
        'GET /api/workflow-runs/{id}/page',
      ]),
    );
    const { rows: after } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('keeps a read token to reads', async () => {
    const { id, token } = await mint({ agent_id: 'writer', scopes: ['read'] });
    expect((await app.call('GET', '/api/tasks/all', { headers: bearer(token) })).status).toBe(200);
    const self = await app.call('GET', '/api/auth/self', { headers: bearer(token) });
    expect(self.body).toMatchObject({
      authenticated: true,
      actor: 'writer',
      role: 'agent',
      agent: { agent_id: 'writer', token_id: id, scopes: ['read'] },
    });
    const claim = await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: randomUUID() } });
    expect(claim.status).toBe(403);
    expect(claim.body.reason).toMatch(/scopes \(read\) do not include agent/);
  });
});

describe('acting as the agent', () => {
  it("claims and works a run targeted at it, as itself whatever the body says; another agent's run is 403", async () => {
    const { token } = await mint({ agent_id: 'writer' });
    const mine = await dispatchedRunFor('writer');
    const session = 'agent:writer:subagent:s1';
    const claim = await app.call('POST', `/api/workflow-runs/${mine}/claim`, {
      headers: bearer(token),
      body: { session_id: session, actor: 'ops-bot' },
    });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    expect(claim.body).toMatchObject({ claimed: true });
    const heartbeat = await app.call('POST', `/api/workflow-runs/${mine}/heartbeat`, {
      headers: bearer(token),
      body: { session_id: session, actor: 'dashboard-operator' },
    });
    expect(heartbeat.status).toBe(200);
    const actors = await app.db.query<{ action: string; actor: string }>(
      'SELECT action, actor FROM audit_log WHERE entity_id = $1 AND action IN ($2, $3) ORDER BY id',
      [mine, 'claimed', 'heartbeat'],
    );
    expect(actors.rows).toEqual([
      { action: 'claimed', actor: 'writer' },
      { action: 'heartbeat', actor: 'writer' },
    ]);

    const theirs = await dispatchedRunFor('editor');
    for (const [method, path, body] of [
      ['POST', `/api/workflow-runs/${theirs}/claim`, { session_id: 'agent:writer:subagent:s2' }],
      ['POST', `/api/workflow-runs/${theirs}/complete`, { session_id: 'agent:editor:subagent:x' }],
      ['POST', `/api/workflow-runs/${theirs}/fail`, { session_id: 'agent:editor:subagent:x', error: 'no' }],
      ['PATCH', `/api/workflow-runs/${theirs}`, { input_tokens: 1 }],
      ['POST', `/api/workflow-runs/${theirs}/cancel`, {}],
    ] as const) {
      const res = await app.call(method, path, { headers: bearer(token), body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    const claimAsOther = await app.call('POST', `/api/workflow-runs/${mine}/claim`, {
      headers: bearer(token),
      body: { agent_id: 'editor', session_id: session },
    });
    expect(claimAsOther.status).toBe(403);
    expect(claimAsOther.body.reason).toMatch(/may not act as editor/);
  });

  it('claims, renews and releases tasks only in its own name', async () => {
    const { token } = await mint({ agent_id: 'writer' });
    const project = await app.call('POST', '/api/projects', { ...operator, body: { name: `p-${randomUUID()}` } });
    const task = await app.call('POST', '/api/tasks', { ...operator, body: { project_id: project.body.id, title: 'a task' } });
    const taskId = task.body.id as string;
    const asOther = await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: taskId, agent_name: 'editor' } });
    expect(asOther.status).toBe(403);
    const claim = await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: taskId } });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    expect(claim.body.locked_by).toBe('writer');
    // the operator's claim of another agent cannot be released by this token: it releases in its own name only
    const { token: editorToken } = await mint({ agent_id: 'editor' });
    const release = await app.call('POST', '/api/agent/release', { headers: bearer(editorToken), body: { task_id: taskId } });
    expect(release.status).toBe(404);
    expect(release.body.error).toMatch(/not locked by editor/);
    expect((await app.call('POST', '/api/agent/release', { headers: bearer(token), body: { task_id: taskId } })).status).toBe(200);
  });

  it("claims only tasks it owns or no one owns: another agent's task is 403 {error: forbidden, reason} and stays unlocked; the operator claims any", async () => {
    const { token } = await mint({ agent_id: 'writer' });
    const project = await app.call('POST', '/api/projects', { ...operator, body: { name: `p-${randomUUID()}` } });
    const newTask = async (owner: string | null) =>
      (await app.call('POST', '/api/tasks', { ...operator, body: { project_id: project.body.id, title: `owned by ${owner}`, owner } })).body
        .id as string;
    const editors = await newTask('editor');
    const before = await app.db.query('SELECT * FROM tasks WHERE id = $1', [editors]);
    const auditBefore = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log WHERE task_id = $1', [editors]);
    const refused = await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: editors } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', reason: expect.stringContaining('owned by another agent') });
    // nothing locked, nothing changed, nothing audited
    expect((await app.db.query('SELECT * FROM tasks WHERE id = $1', [editors])).rows).toEqual(before.rows);
    expect((await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log WHERE task_id = $1', [editors])).rows).toEqual(
      auditBefore.rows,
    );
    // its own task and a task without an owner are claimable
    for (const owner of ['writer', null]) {
      const claim = await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: await newTask(owner) } });
      expect(claim.status, JSON.stringify(claim.body)).toBe(200);
      expect(claim.body.locked_by).toBe('writer');
    }
    // an unknown or malformed id is answered as for the operator, not as a refusal
    expect((await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: randomUUID() } })).status).toBe(404);
    expect((await app.call('POST', '/api/agent/claim', { headers: bearer(token), body: { task_id: 'not-a-uuid' } })).status).toBeLessThan(
      500,
    );
    // the operator token is not held to it
    const byOperator = await app.call('POST', '/api/agent/claim', { ...operator, body: { task_id: editors, agent_name: 'writer' } });
    expect(byOperator.status, JSON.stringify(byOperator.body)).toBe(200);
  });

  it('takes governance from its agent profile, never from an operator-like name in the body', async () => {
    const { token } = await mint({ agent_id: 'writer' });
    const project = await app.call('POST', '/api/projects', { ...operator, body: { name: `p-${randomUUID()}` } });
    const task = await app.call('POST', '/api/tasks', { ...operator, body: { project_id: project.body.id, title: 'assign me' } });
    const envelope = () => ({
      actionId: randomUUID(),
      kind: 'task.assign',
      targetId: task.body.id,
      params: { owner: 'writer' },
      actor: 'ops-bot',
    });
    const refused = await app.call('POST', '/api/actions/execute', { headers: bearer(token), body: envelope() });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toMatch(/actor writer \(role external/);
    await app.db.query(
      `INSERT INTO agent_profiles (agent_id, role) VALUES ('writer', 'orchestrator') ON CONFLICT (agent_id) DO UPDATE SET role = 'orchestrator'`,
    );
    const allowed = await app.call('POST', '/api/actions/execute', { headers: bearer(token), body: envelope() });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.receipt).toMatchObject({ outcome: 'executed', actor: 'writer' });
    await app.db.query(`DELETE FROM agent_profiles WHERE agent_id = 'writer'`);
  });

  it("binds identity without DASHBOARD_AUTH_TOKEN too (loopback dev mode), while a request without a token stays the operator's", async () => {
    const { token } = await mint({ agent_id: 'writer' });
    delete process.env.DASHBOARD_AUTH_TOKEN;
    resetConfig();
    try {
      expect((await app.call('POST', '/api/budgets', { headers: bearer(token), body: {} })).status).toBe(403);
      expect((await app.call('GET', '/api/settings')).status).toBe(200);
      expect((await app.call('GET', '/api/settings', { headers: bearer('fta_unknown') })).status).toBe(401);
    } finally {
      process.env.DASHBOARD_AUTH_TOKEN = OPERATOR;
      resetConfig();
    }
  });

  it('keeps streams to the operator: an agent token opening one is refused', async () => {
    const { token } = await mint({ agent_id: 'writer' });
    const res = await app.http('GET', '/api/events/stream', { headers: bearer(token) });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });
});
