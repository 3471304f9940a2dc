import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimedRun, runStatus, templateWithRoute, useWorkflowApp } from './workflow-support';

const app = useWorkflowApp();
let type: string;
beforeAll(async () => {
  type = await templateWithRoute(app, { steps: ['draft', 'review', 'publish'] });
});

async function runningRun() {
  const run = await claimedRun(app, type);
  await app.call('POST', `/api/workflow-runs/${run.id}/start`, { body: { session_id: run.session } });
  return run;
}

async function openApproval(run: { id: string; session: string }, body: Record<string, unknown> = {}) {
  const res = await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, {
    body: { session_id: run.session, step_name: 'review', approver_id: 'editor-in-chief', approval_type: 'publish', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.approval as { id: string };
}

describe('approvals', () => {
  it('opens a pending approval from the holding session and puts the run in waiting_for_approval', async () => {
    const run = await runningRun();
    const res = await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, {
      body: { session_id: run.session, step_name: 'review', approver_id: 'chief' },
    });
    expect(res.status).toBe(201);
    expect(res.body.approval).toMatchObject({
      workflow_run_id: run.id,
      step_name: 'review',
      status: 'pending',
      approver_id: 'chief',
      approval_type: 'manual',
    });
    expect(res.body.run.status).toBe('waiting_for_approval');
    const detail = await app.call('GET', `/api/workflow-runs/${run.id}`);
    expect(detail.body.approvals.map((a: { id: string }) => a.id)).toEqual([res.body.approval.id]);
  });

  it('refuses an approval for an unknown step (400), from another session (409) or on a queued run (409)', async () => {
    const run = await runningRun();
    expect(
      (await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, { body: { session_id: run.session, step_name: 'nope' } })).status,
    ).toBe(400);
    expect(
      (await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, { body: { session_id: 'agent:x:y:z', step_name: 'review' } }))
        .status,
    ).toBe(409);
    const queued = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type } });
    expect(
      (
        await app.call('POST', `/api/workflow-runs/${queued.body.id}/approvals`, {
          body: { session_id: 'agent:x:y:z', step_name: 'review' },
        })
      ).status,
    ).toBe(409);
  });

  it('approving the last pending approval moves the run back to running', async () => {
    const run = await runningRun();
    const a = await openApproval(run);
    const b = await openApproval(run, { step_name: 'publish' });
    const first = await app.call('PATCH', `/api/approvals/${a.id}`, {
      body: { decision: 'approved', decided_by: 'dashboard-operator', note: 'fine' },
    });
    expect(first.status).toBe(200);
    expect(first.body.approval).toMatchObject({ status: 'approved', decided_by: 'dashboard-operator', note: 'fine' });
    expect(first.body.run.status).toBe('waiting_for_approval');
    const second = await app.call('PATCH', `/api/approvals/${b.id}`, { body: { decision: 'approved' } });
    expect(second.body.run.status).toBe('running');
  });

  it('rejecting fails the waiting run with the rejection as last_error', async () => {
    const run = await runningRun();
    const a = await openApproval(run);
    const res = await app.call('PATCH', `/api/approvals/${a.id}`, { body: { decision: 'rejected', note: 'off-brand' } });
    expect(res.body.run).toMatchObject({ status: 'failed' });
    expect(res.body.run.last_error).toMatch(/rejected by dashboard-operator: off-brand/);
  });

  it('a second decision on an approval is refused with 409', async () => {
    const run = await runningRun();
    const a = await openApproval(run);
    await app.call('PATCH', `/api/approvals/${a.id}`, { body: { decision: 'approved' } });
    const again = await app.call('PATCH', `/api/approvals/${a.id}`, { body: { decision: 'rejected' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already approved/);
    const racing = await openApproval(run);
    const results = await Promise.all([
      app.call('PATCH', `/api/approvals/${racing.id}`, { body: { decision: 'approved' } }),
      app.call('PATCH', `/api/approvals/${racing.id}`, { body: { decision: 'rejected' } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('refuses decisions from actors without approve or reject rights (403) and bad bodies (400), and 404s unknown approvals', async () => {
    const run = await runningRun();
    const a = await openApproval(run);
    const refused = await app.call('PATCH', `/api/approvals/${a.id}`, { body: { decision: 'approved', decided_by: 'random-writer' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('rejected_governance');
    expect((await app.call('PATCH', `/api/approvals/${a.id}`, { body: { decision: 'maybe' } })).status).toBe(400);
    expect(
      (await app.call('PATCH', '/api/approvals/00000000-0000-4000-8000-000000000000', { body: { decision: 'approved' } })).status,
    ).toBe(404);
    expect((await runStatus(app, run.id)).status).toBe('waiting_for_approval');
  });

  it('escalates a pending approval to the escalated_to approver, and lists pending approvals by approver with the default limit of 50', async () => {
    const run = await runningRun();
    const a = await openApproval(run, { approver_id: 'first-approver' });
    const res = await app.call('POST', `/api/approvals/${a.id}/escalate`, {
      body: { escalated_to: 'ops-lead', reason: 'no answer in 2 days' },
    });
    expect(res.status).toBe(200);
    expect(res.body.approval).toMatchObject({
      approver_id: 'ops-lead',
      escalated_to: 'ops-lead',
      escalation_reason: 'no answer in 2 days',
      status: 'pending',
    });
    const pending = await app.call('GET', '/api/approvals/pending?approver_id=ops-lead');
    expect(pending.body.approvals.map((p: { id: string }) => p.id)).toEqual([a.id]);
    expect((await app.call('GET', '/api/approvals/pending?approver_id=first-approver')).body.approvals).toEqual([]);
    expect((await app.call('POST', `/api/approvals/${a.id}/escalate`, { body: { escalated_to: 'x', actor: 'stranger' } })).status).toBe(
      403,
    );
    await app.call('PATCH', `/api/approvals/${a.id}`, { body: { decision: 'approved' } });
    expect((await app.call('POST', `/api/approvals/${a.id}/escalate`, { body: { escalated_to: 'x' } })).status).toBe(409);
    for (let i = 0; i < 52; i++)
      await app.db.query(`INSERT INTO workflow_approvals (id, workflow_run_id, step_name) VALUES (gen_random_uuid(), $1, 'review')`, [
        run.id,
      ]);
    expect((await app.call('GET', '/api/approvals/pending')).body.approvals).toHaveLength(50);
    expect((await app.call('GET', '/api/approvals/pending?limit=x')).status).toBe(400);
    const all = await app.call('GET', '/api/approvals?status=approved');
    expect(all.body.approvals.every((p: { status: string }) => p.status === 'approved')).toBe(true);
    const ofRun = await app.call('GET', `/api/approvals?workflow_run_id=${run.id}&limit=10`);
    expect(ofRun.body.approvals).toHaveLength(10);
    expect(ofRun.body).toMatchObject({ total: 53, truncated: true }); // the escalated one and the 52 more
  });

  it('never answers random decision or escalation bodies with a 5xx', async () => {
    const run = await runningRun();
    const a = await openApproval(run);
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        expect((await app.call('PATCH', `/api/approvals/${a.id}`, { body })).status).toBeLessThan(500);
        expect((await app.call('POST', `/api/approvals/${a.id}/escalate`, { body })).status).toBeLessThan(500);
        expect((await app.call('POST', `/api/workflow-runs/${run.id}/approvals`, { body })).status).toBeLessThan(500);
      }),
      { numRuns: 30 },
    );
  });
});
