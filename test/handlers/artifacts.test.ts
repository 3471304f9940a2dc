import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditActions, claimedRun, templateWithRoute, useWorkflowApp } from './workflow-support';

const app = useWorkflowApp();
let type: string;
beforeAll(async () => {
  type = await templateWithRoute(app);
});

describe('artifacts', () => {
  it('registers url, file and text artifacts from the holding session and shows them in the run detail', async () => {
    const run = await claimedRun(app, type);
    const url = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
      body: { session_id: run.session, artifact_type: 'url', uri: 'https://example.com/post', title: 'Post' },
    });
    expect(url.status).toBe(201);
    expect(url.body).toMatchObject({ workflow_run_id: run.id, artifact_type: 'url', uri: 'https://example.com/post', status: 'active' });
    const text = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
      body: { session_id: run.session, artifact_type: 'text', content: 'draft body' },
    });
    expect(text.status).toBe(201);
    const detail = await app.call('GET', `/api/workflow-runs/${run.id}`);
    expect(detail.body.artifacts.map((a: { id: string }) => a.id).sort()).toEqual([url.body.id, text.body.id].sort());
  });

  it('refuses artifacts without their uri or content, with a bad type or URL (400), and from another session (409)', async () => {
    const run = await claimedRun(app, type);
    const post = (body: Record<string, unknown>) =>
      app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, { body: { session_id: run.session, ...body } });
    expect((await post({ artifact_type: 'text' })).status).toBe(400);
    expect((await post({ artifact_type: 'file' })).status).toBe(400);
    expect((await post({ artifact_type: 'url', uri: 'ftp://x' })).status).toBe(400);
    expect((await post({ artifact_type: 'video', uri: 'https://x' })).status).toBe(400);
    const other = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
      body: { session_id: 'agent:x:y:z', artifact_type: 'text', content: 'x' },
    });
    expect(other.status).toBe(409);
  });

  it('filters the list by run, type and status; updates metadata (merged) and status; deletes with an audit row', async () => {
    const run = await claimedRun(app, type);
    const file = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
      body: { session_id: run.session, artifact_type: 'file', uri: '/tmp/report.pdf', metadata: { pages: 3 } },
    });
    await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
      body: { session_id: run.session, artifact_type: 'text', content: 'x' },
    });
    const files = await app.call('GET', `/api/artifacts?workflow_run_id=${run.id}&artifact_type=file`);
    expect(files.body.artifacts.map((a: { id: string }) => a.id)).toEqual([file.body.id]);
    expect(files.body).toMatchObject({ total: 1, truncated: false });
    const firstOfRun = await app.call('GET', `/api/artifacts?workflow_run_id=${run.id}&limit=1`);
    expect(firstOfRun.body).toMatchObject({ total: 2, truncated: true });
    expect(firstOfRun.body.artifacts).toHaveLength(1);
    expect((await app.call('GET', '/api/artifacts?artifact_type=video')).status).toBe(400);
    const updated = await app.call('PATCH', `/api/artifacts/${file.body.id}`, {
      body: { status: 'superseded', metadata: { reviewed: true } },
    });
    expect(updated.body).toMatchObject({ status: 'superseded', metadata: { pages: 3, reviewed: true } });
    expect((await app.call('GET', `/api/artifacts?workflow_run_id=${run.id}&status=superseded`)).body.artifacts).toHaveLength(1);
    expect((await app.call('PATCH', `/api/artifacts/${file.body.id}`, { body: {} })).status).toBe(400);
    expect((await app.call('PATCH', `/api/artifacts/${file.body.id}`, { body: { artifact_type: 'url' } })).status).toBe(400);
    const deleted = await app.call('DELETE', `/api/artifacts/${file.body.id}`);
    expect(deleted.body).toEqual({ deleted: true, id: file.body.id });
    expect((await app.call('DELETE', `/api/artifacts/${file.body.id}`)).status).toBe(404);
    expect((await auditActions(app, file.body.id)).map((a) => a.action)).toEqual(['created', 'updated', 'deleted']);
  });

  it('never answers random artifact bodies with a 5xx', async () => {
    const run = await claimedRun(app, type);
    const art = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
      body: { session_id: run.session, artifact_type: 'text', content: 'x' },
    });
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        expect((await app.call('PATCH', `/api/artifacts/${art.body.id}`, { body })).status).toBeLessThan(500);
        expect((await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, { body })).status).toBeLessThan(500);
      }),
      { numRuns: 30 },
    );
  });
});
