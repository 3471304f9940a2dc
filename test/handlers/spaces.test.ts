import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function defaults() {
  const { rows } = await app.db.query<{ id: string }>('SELECT id FROM workspaces WHERE is_default');
  return rows.map((r) => r.id);
}

describe('workspaces', () => {
  it('always has exactly one default workspace, created on first use', async () => {
    const list = await app.call('GET', '/api/spaces');
    expect(list.status).toBe(200);
    expect(list.body.spaces).toHaveLength(1);
    expect(list.body.spaces[0]).toMatchObject({ name: 'Default', slug: 'default', is_default: true });
    expect(await defaults()).toHaveLength(1);
    await app.call('GET', '/api/spaces');
    expect((await app.call('GET', '/api/spaces')).body.spaces).toHaveLength(1);
  });

  it('creates with a derived unique slug, refuses a taken slug with 409, and reads one back', async () => {
    const a = await app.call('POST', '/api/spaces', {
      body: { name: 'Ops & Infra', icon: 'server', color: '#223344', settings: { theme: 'dark' } },
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      name: 'Ops & Infra',
      slug: 'ops-infra',
      icon: 'server',
      color: '#223344',
      description: '',
      settings: { theme: 'dark' },
      is_default: false,
    });
    const b = await app.call('POST', '/api/spaces', { body: { name: 'Ops Infra' } });
    expect(b.body.slug).toBe('ops-infra-2');
    const taken = await app.call('POST', '/api/spaces', { body: { name: 'x', slug: 'ops-infra' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatch(/ops-infra/);
    expect((await app.call('GET', `/api/spaces/${a.body.id}`)).body.name).toBe('Ops & Infra');
    expect((await app.call('GET', `/api/spaces/${UNKNOWN}`)).status).toBe(404);
    const audit = await app.db.query(`SELECT action FROM audit_log WHERE entity_type = 'workspace' AND entity_id = $1`, [a.body.id]);
    expect(audit.rows).toEqual([{ action: 'created' }]);
    const event = await app.db.query(`SELECT payload FROM event_outbox WHERE name = 'space:changed' AND payload->>'spaceId' = $1`, [
      a.body.id,
    ]);
    expect(event.rows).toEqual([{ payload: { action: 'created', spaceId: a.body.id } }]);
  });

  it('refuses bad create and update bodies with 400 naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /name/],
      [{ name: 'x', slug: 'Not A Slug' }, /slug/],
      [{ name: 'x', settings: [] }, /settings/],
      [{ name: 'x', is_default: true }, /is_default/],
      [{ name: 'x', owner: 'me' }, /owner/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', '/api/spaces', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const ws = (await app.call('POST', '/api/spaces', { body: { name: 'Strict' } })).body;
    expect((await app.call('PUT', `/api/spaces/${ws.id}`, { body: {} })).status).toBe(400);
    expect((await app.call('PUT', `/api/spaces/${ws.id}`, { body: { sort_order: 1.5 } })).status).toBe(400);
    expect((await app.call('PUT', `/api/spaces/${UNKNOWN}`, { body: { name: 'x' } })).status).toBe(404);
  });

  it('updates fields, and moves the default with is_default or set-default so that exactly one stays default', async () => {
    const ws = (await app.call('POST', '/api/spaces', { body: { name: 'Next default' } })).body;
    const updated = await app.call('PUT', `/api/spaces/${ws.id}`, {
      body: { name: 'Renamed', sort_order: 9, description: 'd', is_default: true },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Renamed', sort_order: 9, description: 'd', is_default: true });
    expect(await defaults()).toEqual([ws.id]);
    const unset = await app.call('PUT', `/api/spaces/${ws.id}`, { body: { is_default: false } });
    expect(unset.status).toBe(409);
    const other = (await app.call('GET', '/api/spaces')).body.spaces.find((s: { slug: string }) => s.slug === 'default');
    const set = await app.call('POST', `/api/spaces/${other.id}/set-default`);
    expect(set.body).toMatchObject({ id: other.id, is_default: true });
    expect(await defaults()).toEqual([other.id]);
    expect((await app.call('POST', `/api/spaces/${UNKNOWN}/set-default`)).status).toBe(404);
    const slugClash = await app.call('PUT', `/api/spaces/${ws.id}`, { body: { slug: 'default' } });
    expect(slugClash.status).toBe(409);
  });

  it('never deletes the default workspace; deleting another unassigns its projects', async () => {
    const def = (await defaults())[0]!;
    const refused = await app.call('DELETE', `/api/spaces/${def}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/default/);
    const ws = (await app.call('POST', '/api/spaces', { body: { name: 'Doomed' } })).body;
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Lives on' } })).body;
    await app.call('PUT', `/api/spaces/${ws.id}/projects`, { body: { project_ids: [project.id] } });
    expect((await app.call('DELETE', `/api/spaces/${ws.id}`)).body).toEqual({ deleted: true });
    expect((await app.call('GET', `/api/projects/${project.id}`)).body.workspace_id).toBeNull();
    expect((await app.call('DELETE', `/api/spaces/${ws.id}`)).status).toBe(404);
  });

  it('duplicates a workspace with its settings under a new slug, never as default', async () => {
    const src = (
      await app.call('POST', '/api/spaces', { body: { name: 'Source', settings: { layout: 'grid', nested: { a: 1 } }, color: 'red' } })
    ).body;
    const copy = await app.call('POST', `/api/spaces/${src.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({
      name: 'Source (copy)',
      slug: 'source-copy',
      settings: { layout: 'grid', nested: { a: 1 } },
      color: 'red',
      is_default: false,
    });
    expect(copy.body.id).not.toBe(src.id);
    const named = await app.call('POST', `/api/spaces/${src.id}/duplicate`, { body: { slug: 'chosen' } });
    expect(named.body.slug).toBe('chosen');
    expect((await app.call('POST', `/api/spaces/${src.id}/duplicate`, { body: { slug: 'chosen' } })).status).toBe(409);
    expect((await app.call('POST', `/api/spaces/${src.id}/duplicate`, { body: { slug: 'Bad Slug' } })).status).toBe(400);
    expect((await app.call('POST', `/api/spaces/${UNKNOWN}/duplicate`)).status).toBe(404);
  });

  it('assigns exactly the listed projects, lists them, and counts their projects and tasks', async () => {
    const ws = (await app.call('POST', '/api/spaces', { body: { name: 'Assigned' } })).body;
    const p1 = (await app.call('POST', '/api/projects', { body: { name: 'One' } })).body;
    const p2 = (await app.call('POST', '/api/projects', { body: { name: 'Two', status: 'paused' } })).body;
    const first = await app.call('PUT', `/api/spaces/${ws.id}/projects`, { body: { project_ids: [p1.id, p2.id] } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ workspace_id: ws.id, project_ids: [p1.id, p2.id], assigned: [p1.id, p2.id], unassigned: [] });
    await app.call('POST', '/api/tasks', { body: { project_id: p1.id, title: 'open' } });
    await app.call('POST', '/api/tasks', { body: { project_id: p1.id, title: 'done', status: 'completed' } });
    const gone = (await app.call('POST', '/api/tasks', { body: { project_id: p2.id, title: 'gone' } })).body;
    await app.call('DELETE', `/api/tasks/${gone.id}`);
    const stats = await app.call('GET', `/api/spaces/${ws.id}/stats`);
    expect(stats.body).toEqual({
      workspace_id: ws.id,
      projects: { total: 2, by_status: { active: 1, paused: 1 } },
      tasks: { total: 2, open: 1, completed: 1, by_status: { backlog: 1, completed: 1 } },
    });
    const second = await app.call('PUT', `/api/spaces/${ws.id}/projects`, { body: { project_ids: [p2.id] } });
    expect(second.body).toMatchObject({ assigned: [], unassigned: [p1.id] });
    const listed = await app.call('GET', `/api/spaces/${ws.id}/projects`);
    expect(listed.body.projects.map((p: { id: string }) => p.id)).toEqual([p2.id]);
    const missing = await app.call('PUT', `/api/spaces/${ws.id}/projects`, { body: { project_ids: [UNKNOWN] } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain(UNKNOWN);
    expect((await app.call('PUT', `/api/spaces/${ws.id}/projects`, { body: {} })).status).toBe(400);
    expect((await app.call('GET', `/api/spaces/${UNKNOWN}/stats`)).status).toBe(404);
    expect((await app.call('GET', `/api/spaces/${UNKNOWN}/projects`)).status).toBe(404);
    const audit = await app.db.query(`SELECT action FROM audit_log WHERE entity_type = 'project' AND entity_id = $1 ORDER BY id`, [p1.id]);
    expect(audit.rows.map((r) => (r as { action: string }).action)).toEqual(['created', 'updated', 'updated']);
  });

  it('traces every project a bulk assignment moves as one update each: audit before and after, state snapshot, project:changed', async () => {
    const ws = (await app.call('POST', '/api/spaces', { body: { name: 'Bulk' } })).body;
    const projects = [];
    for (let i = 0; i < 5; i++) projects.push((await app.call('POST', '/api/projects', { body: { name: `Bulk ${i}` } })).body);
    const ids = projects.map((p) => p.id);
    await app.call('PUT', `/api/spaces/${ws.id}/projects`, { body: { project_ids: ids.slice(0, 3) } });
    const eventsBefore = (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_outbox WHERE name = 'project:changed'`))
      .rows[0]!.n;
    const realClock = app.ctx.deps.clock;
    const at = new Date('2099-01-01T00:00:00.000Z');
    app.ctx.deps.clock = movableClock(at);
    const res = await app
      .call('PUT', `/api/spaces/${ws.id}/projects`, { body: { project_ids: ids.slice(2) } })
      .finally(() => (app.ctx.deps.clock = realClock));
    expect(res.body).toMatchObject({ assigned: ids.slice(3), unassigned: ids.slice(0, 2) });
    const { rows: audit } = await app.db.query<{
      entity_id: string;
      project_id: string;
      old_value: { workspace_id: string | null };
      new_value: { workspace_id: string | null };
    }>(
      `SELECT entity_id, project_id, old_value, new_value FROM audit_log WHERE entity_type = 'project' AND action = 'updated' AND entity_id = ANY($1) ORDER BY id`,
      [ids],
    );
    const last = audit.slice(-4);
    expect(last.map((a) => [a.entity_id, a.project_id, a.new_value.workspace_id])).toEqual([
      [ids[3], ids[3], ws.id],
      [ids[4], ids[4], ws.id],
      [ids[0], ids[0], null],
      [ids[1], ids[1], null],
    ]);
    expect(last.map((a) => a.old_value.workspace_id)).toEqual([null, null, ws.id, ws.id]);
    const { rows: snapshots } = await app.db.query<{ entity_id: string; workspace_id: string | null }>(
      `SELECT entity_id, state->>'workspace_id' AS workspace_id FROM entity_snapshots WHERE entity_type = 'project' AND created_at = $1 ORDER BY entity_id`,
      [at],
    );
    expect(snapshots).toEqual(
      [
        { entity_id: ids[0], workspace_id: null },
        { entity_id: ids[1], workspace_id: null },
        { entity_id: ids[3], workspace_id: ws.id },
        { entity_id: ids[4], workspace_id: ws.id },
      ].sort((a, b) => (a.entity_id < b.entity_id ? -1 : 1)),
    );
    const eventsAfter = (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_outbox WHERE name = 'project:changed'`))
      .rows[0]!.n;
    expect(eventsAfter - eventsBefore).toBe(4);
  });

  it('never answers 5xx to random workspace bodies', async () => {
    const ws = (await app.call('POST', '/api/spaces', { body: { name: 'Fuzz' } })).body;
    const body = fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.string(), fc.integer()),
          slug: fc.string(),
          settings: fc.anything(),
          sort_order: fc.oneof(fc.integer(), fc.double()),
          is_default: fc.boolean(),
          project_ids: fc.array(fc.oneof(fc.uuid(), fc.string())),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    const targets = [
      ['POST', '/api/spaces'],
      ['PUT', `/api/spaces/${ws.id}`],
      ['POST', `/api/spaces/${ws.id}/duplicate`],
      ['PUT', `/api/spaces/${ws.id}/projects`],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), body, async ([method, path], b) => {
        const res = await app.call(method, path, { body: b });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.error).toBe('string');
      }),
      { numRuns: 80 },
    );
    expect(await defaults()).toHaveLength(1);
  });
});
