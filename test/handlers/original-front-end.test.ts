import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { auditActions, claimedRun, createRun, fakeRuntime, fakeTime, runStatus, templateWithRoute, uniqueName } from './workflow-support';

/**
 * The original system's browser front end as a client (docs/api/original-front-end.md): the names it uses where the spec
 * leaves them open, and the requests it sends that the spec does not forbid.
 */
const app = useTestApp();
let projectId: string;
beforeAll(async () => {
  projectId = (await app.call('POST', '/api/projects', { body: { name: 'Front end' } })).body.id;
});
beforeEach(() => {
  fakeTime(app);
});

async function task(body: Record<string, unknown>) {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: projectId, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; title: string; metadata: Record<string, unknown>; status: string };
}

describe('query strings: unknown keys are ignored and named, known ones stay validated', () => {
  it('answers 200 with X-Ignored-Params naming the keys the route does not know, in handler calls and over HTTP', async () => {
    const viaHandler = await app.call('GET', `/api/tasks/all?project_id=${projectId}&_=123&sort=title`);
    expect(viaHandler.status).toBe(200);
    expect(viaHandler.headers['x-ignored-params']).toBe('_,sort');
    const viaHttp = await app.http('GET', '/api/audit?limit=5&page_token=x');
    expect(viaHttp.status).toBe(200);
    expect(viaHttp.headers['x-ignored-params']).toBe('page_token');
    expect(viaHttp.headers['access-control-expose-headers']).toMatch(/x-ignored-params/);
    const clean = await app.call('GET', '/api/audit?limit=5');
    expect(clean.headers['x-ignored-params']).toBeUndefined();
  });

  it('still refuses a bad value of a known key with 400 naming it', async () => {
    const res = await app.call('GET', '/api/audit?limit=abc&whatever=1');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/limit/);
    expect((await app.call('GET', '/api/projects?status=sleeping')).status).toBe(400);
    expect((await app.call('GET', '/api/projects?limit=0')).status).toBe(400);
  });

  it('ignores any unknown key on a strict route (property)', async () => {
    const known = new Set(['status', 'workspace_id', 'limit']);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.stringMatching(/^[a-z_][a-z0-9_]{0,15}$/).filter((k) => !known.has(k)),
          { minLength: 1, maxLength: 4 },
        ),
        async (keys) => {
          const res = await app.call('GET', `/api/projects?${keys.map((k) => `${k}=1`).join('&')}`);
          expect(res.status).toBe(200);
          expect(res.headers['x-ignored-params']).toBe(keys.join(','));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('takes status and limit on /api/projects', async () => {
    await app.call('POST', '/api/projects', { body: { name: 'Second' } });
    await app.call('POST', '/api/projects', { body: { name: 'Paused one', status: 'paused' } });
    const active = (await app.call('GET', '/api/projects?status=active')).body as Array<{ id: string; status: string }>;
    expect(active.length).toBeGreaterThan(1);
    const page = await app.call('GET', '/api/projects?status=active&limit=1');
    expect(page.status).toBe(200);
    expect(page.body).toEqual([active[0]]);
    expect((await app.call('GET', '/api/projects?status=paused')).body.map((p: { name: string }) => p.name)).toEqual(['Paused one']);
  });

  it('takes agent_name for agent on /api/views/agent, and still requires one of them', async () => {
    await task({ title: 'Queued for scout', status: 'ready', owner: 'scout' });
    const byAlias = await app.call('GET', '/api/views/agent?agent_name=scout');
    const byName = await app.call('GET', '/api/views/agent?agent=scout');
    expect(byAlias.status).toBe(200);
    expect(byAlias.body).toEqual(byName.body);
    expect(byAlias.body.tasks.map((t: { title: string }) => t.title)).toEqual(['Queued for scout']);
    const neither = await app.call('GET', '/api/views/agent');
    expect(neither.status).toBe(400);
    expect(neither.body.error).toMatch(/agent/);
  });

  it('hides archived tasks on /api/tasks/all only for include_archived=false, and accepts include_child_projects', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: uniqueName('archive') } })).body.id;
    const kept = await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'live' } });
    const gone = await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'old' } });
    expect((await app.call('POST', `/api/tasks/${gone.body.id}/archive`)).status).toBe(200);
    const titles = async (q: string) =>
      ((await app.call('GET', `/api/tasks/all?project_id=${project}${q}`)).body as Array<{ title: string }>).map((t) => t.title).sort();
    expect(await titles('')).toEqual(['live', 'old']);
    expect(await titles('&include_archived=true')).toEqual(['live', 'old']);
    expect(await titles('&include_archived=false')).toEqual(['live']);
    const child = await app.call('GET', `/api/tasks/all?project_id=${project}&include_child_projects=true`);
    expect(child.headers['x-ignored-params']).toBeUndefined();
    expect(child.body.map((t: { id: string }) => t.id).sort()).toEqual([kept.body.id, gone.body.id].sort());
    expect((await app.call('GET', '/api/tasks/all?include_archived=perhaps')).status).toBe(400);
  });
});

describe("bodies: the original client's names as aliases, unknown keys still refused", () => {
  it('creates a task from text and category: text is the title, category goes to metadata.category', async () => {
    const created = await task({ text: 'Write the launch post', category: 'marketing', metadata: { source: 'ui' } });
    expect(created.title).toBe('Write the launch post');
    expect(created.metadata).toEqual({ source: 'ui', category: 'marketing' });
    const both = await task({ title: 'Real title', text: 'ignored text' });
    expect(both.title).toBe('Real title');
    expect((await app.call('POST', '/api/tasks', { body: { project_id: projectId } })).status).toBe(400);
    const unknown = await app.call('POST', '/api/tasks', { body: { project_id: projectId, text: 'x', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/colour/);
  });

  it('updates a task from text and category, keeping the rest of its metadata, with one audit row', async () => {
    const created = await task({ title: 'Before', metadata: { source: 'ui' } });
    const res = await app.call('PATCH', `/api/tasks/${created.id}`, { body: { text: 'After', category: 'ops' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ title: 'After', metadata: { source: 'ui', category: 'ops' } });
    const audit = await app.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE entity_id = $1 AND action = 'updated'`, [
      created.id,
    ]);
    expect(audit.rows).toHaveLength(1);
    expect((await app.call('PATCH', `/api/tasks/${created.id}`, { body: { category: '' } })).status).toBe(400);
  });

  it("takes category: null (the edit form's empty category) as no category, on create and on update", async () => {
    const created = await app.call('POST', '/api/tasks', {
      body: { project_id: projectId, text: 'No category', category: null, metadata: { source: 'ui' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.metadata).toEqual({ source: 'ui' });
    const categorised = await task({ title: 'Had one', category: 'ops', metadata: { source: 'ui' } });
    const cleared = await app.call('PATCH', `/api/tasks/${categorised.id}`, { body: { text: 'Had one', category: null, owner: null } });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.metadata).toEqual({ source: 'ui' });
    expect((await app.call('GET', `/api/tasks/${categorised.id}`)).body.metadata).toEqual({ source: 'ui' });
    expect((await app.call('PATCH', `/api/tasks/${categorised.id}`, { body: { category: 7 } })).status).toBe(400);
  });

  describe('workflow bodies', () => {
    let type: string;
    beforeAll(async () => {
      type = await templateWithRoute(app, { steps: ['draft', 'review'] });
    });
    beforeEach(() => {
      fakeRuntime(app);
    });

    it('creates a run from initiator (the actor) and run_priority (kept in metadata)', async () => {
      const run = await createRun(app, type, { initiator: 'dashboard-operator', run_priority: 'high', metadata: { from: 'ui' } });
      expect((await runStatus(app, run.id)).metadata).toEqual({ from: 'ui', run_priority: 'high' });
      expect((await auditActions(app, run.id))[0]!.actor).toBe('dashboard-operator');
      const bad = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, run_priority: { level: 1 } } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/run_priority/);
    });

    it('decides an approval with notes as the note', async () => {
      const run = await claimedRun(app, type);
      await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: { session_id: run.session } });
      const opened = await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, {
        body: { session_id: run.session, step_name: 'review' },
      });
      const decided = await app.call('PATCH', `/api/approvals/${opened.body.approval.id}`, {
        body: { decision: 'approved', notes: 'ship it' },
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      const { rows } = await app.db.query<{ note: string }>('SELECT note FROM workflow_approvals WHERE id = $1', [opened.body.approval.id]);
      expect(rows[0]!.note).toBe('ship it');
    });

    it('updates an artifact from label, artifact_type, uri and status, and keeps the type rules', async () => {
      const run = await claimedRun(app, type);
      const registered = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
        body: { session_id: run.session, artifact_type: 'text', content: 'draft' },
      });
      const id = registered.body.id as string;
      const res = await app.call('PATCH', `/api/artifacts/${id}`, {
        body: { label: 'Launch post', artifact_type: 'url', uri: 'https://example.com/launch', status: 'published' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        title: 'Launch post',
        artifact_type: 'url',
        uri: 'https://example.com/launch',
        status: 'published',
      });
      const badUrl = await app.call('PATCH', `/api/artifacts/${id}`, { body: { uri: 'file:///etc/passwd' } });
      expect(badUrl.status).toBe(400);
      const fileWithoutUri = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
        body: { session_id: run.session, artifact_type: 'text', content: 'x' },
      });
      expect((await app.call('PATCH', `/api/artifacts/${fileWithoutUri.body.id}`, { body: { artifact_type: 'file' } })).status).toBe(400);
      expect((await app.call('PATCH', `/api/artifacts/${id}`, { body: { artifact_type: 'video' } })).status).toBe(400);
    });

    it('takes artifact_type: "" (the edit form\'s untouched type) as absent', async () => {
      const run = await claimedRun(app, type);
      const registered = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
        body: { session_id: run.session, artifact_type: 'url', uri: 'https://example.com/a' },
      });
      const id = registered.body.id as string;
      const res = await app.call('PATCH', `/api/artifacts/${id}`, { body: { label: 'Renamed', artifact_type: '', status: 'published' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ title: 'Renamed', artifact_type: 'url', uri: 'https://example.com/a', status: 'published' });
      // alone it names nothing to change
      expect((await app.call('PATCH', `/api/artifacts/${id}`, { body: { artifact_type: '' } })).status).toBe(400);
    });

    it('changes metadata, status or title of a text artifact that arrived without content (restore, import); content rules judge only a change of type or content', async () => {
      const run = await claimedRun(app, type);
      const registered = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
        body: { session_id: run.session, artifact_type: 'text', content: 'x' },
      });
      const id = registered.body.id as string;
      // what a restore or an import writes: the original system's artifacts carry no content
      await app.db.query('UPDATE workflow_artifacts SET content = NULL WHERE id = $1', [id]);
      const meta = await app.call('PATCH', `/api/artifacts/${id}`, { body: { metadata: { reviewed: true } } });
      expect(meta.status, JSON.stringify(meta.body)).toBe(200);
      expect(meta.body).toMatchObject({ content: null, metadata: { reviewed: true } });
      const status = await app.call('PATCH', `/api/artifacts/${id}`, { body: { status: 'published', label: 'Imported' } });
      expect(status.status, JSON.stringify(status.body)).toBe(200);
      expect(status.body).toMatchObject({ status: 'published', title: 'Imported', content: null });
      const audit = await app.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log WHERE entity_id = $1 AND action = 'updated'`,
        [id],
      );
      expect(audit.rows[0]!.n).toBe(2);
      // a change that touches the type rules is still judged by them
      expect((await app.call('PATCH', `/api/artifacts/${id}`, { body: { content: null } })).status).toBe(400);
      expect((await app.call('PATCH', `/api/artifacts/${id}`, { body: { artifact_type: 'file' } })).status).toBe(400);
      expect((await app.call('PATCH', `/api/artifacts/${id}`, { body: { content: 'now it has some' } })).status).toBe(200);
    });
  });
});

describe('POST /api/workflow-runs/:id/start on a queued run by the operator', () => {
  let type: string;
  beforeAll(async () => {
    type = await templateWithRoute(app, { agent: 'publisher' });
  });

  it('dispatches it now (routed, marked dispatched, agent woken) instead of asking for a session_id', async () => {
    const runtime = fakeRuntime(app);
    const run = await createRun(app, type);
    const res = await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: run.id, status: 'dispatched', target_agent_id: 'publisher', wake: { woken: true, errors: [] } });
    expect(runtime.calls).toHaveLength(1);
    expect(JSON.stringify(runtime.calls[0])).toContain('publisher');
    expect((await auditActions(app, run.id)).map((a) => a.action)).toContain('dispatched');
  });

  it('leaves the session-held start of the agent flow as it was', async () => {
    fakeRuntime(app);
    const run = await claimedRun(app, type);
    const started = await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: { session_id: run.session } });
    expect(started.body.status).toBe('running');
    const noSession = await app.call('POST', `/api/workflow-runs/${run.id}/start`);
    expect(noSession.status).toBe(400);
    expect(noSession.body.error).toMatch(/session_id: required to start a running run/);
  });

  it('answers 409 naming why when the run would stay queued (no route), and 404 for an unknown run', async () => {
    fakeRuntime(app);
    const unrouted = uniqueName('bare');
    await app.call('POST', '/api/workflow-templates', { body: { name: unrouted, steps: ['only'] } });
    const run = await createRun(app, unrouted);
    const res = await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: {} });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ reason: 'unrouted', status: 'queued' });
    expect(res.body.error).toMatch(new RegExp(`no agent route for workflow type ${unrouted}`));
    expect((await runStatus(app, run.id)).status).toBe('queued');
    expect((await app.call('POST', '/api/workflow-runs/00000000-0000-4000-8000-000000000000/start', { body: {} })).status).toBe(404);
  });
});
