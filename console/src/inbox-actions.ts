import { api, expectData, undescribed } from './api';
import type { InboxItemOf } from './inbox-data';

/**
 * What each Inbox button calls: the routes that already act on the thing an item is about
 * (docs/console-api.md, "The route behind each action"). Each answers when the server has done it;
 * the item then leaves the list through the stream's invalidation, as it does when someone else acts on it.
 */
type Repairable = InboxItemOf<'doctor_finding'> | InboxItemOf<'expired_claim'>;

/** The doctor checks a repair item names: a lapsed claim is the doctor's `expired_task_lease`, listed apart. */
const repairKinds = (item: Repairable): string[] => (item.kind === 'expired_claim' ? ['expired_task_lease'] : [item.check]);

/** The doctor's repair answer (its OpenAPI entry does not describe it yet). */
export interface RepairOutcome {
  total: number;
  repaired: { kind: string; count: number }[];
}

/** A budget caps either USD or tokens: the cap raised is the one it has. */
export const capUnit = (item: InboxItemOf<'budget'>): 'usd' | 'tokens' =>
  item.cap_usd === null && item.cap_tokens !== null ? 'tokens' : 'usd';

const decide = (item: InboxItemOf<'approval'>, decision: 'approved' | 'rejected', note?: string) =>
  expectData(
    api().PATCH('/api/approvals/{id}', { params: { path: { id: item.approval_id } }, body: { decision, ...(note ? { note } : {}) } }),
  );

/** POST /api/agents/:agent/resume-dispatch: the Inbox's "Resume dispatch" and the Agents screen's. */
export const resumeAgentDispatch = (agent: string) =>
  expectData(api().POST('/api/agents/{agent}/resume-dispatch', { params: { path: { agent } }, body: {} }));

export const inboxActions = {
  approve: (item: InboxItemOf<'approval'>, note?: string) => decide(item, 'approved', note),
  reject: (item: InboxItemOf<'approval'>, note?: string) => decide(item, 'rejected', note),
  retry: (item: InboxItemOf<'failed_run'>) =>
    expectData(
      api().POST('/api/workflow-runs/{id}/override-failure', {
        params: { path: { id: item.run_id } },
        body: undescribed({ next_status: 'queued', reason: 'retried from the console' }),
      }),
    ),
  cancel: (item: InboxItemOf<'stuck_run'>) =>
    expectData(
      api().POST('/api/workflow-runs/{id}/cancel', {
        params: { path: { id: item.run_id } },
        body: undescribed({ reason: 'cancelled from the console' }),
      }),
    ),
  resume_dispatch: (item: InboxItemOf<'agent_paused'>) => resumeAgentDispatch(item.agent_id),
  raise_cap: (item: InboxItemOf<'budget'>, cap: number) =>
    expectData(
      api().PATCH('/api/budgets/{id}', {
        params: { path: { id: item.budget_id } },
        body: capUnit(item) === 'tokens' ? { cap_tokens: cap } : { cap_usd: cap },
      }),
    ),
  /** Stops holding runs and keeps watching: the budget warns at its cap from now on. */
  resume: (item: InboxItemOf<'budget'>) =>
    expectData(api().PATCH('/api/budgets/{id}', { params: { path: { id: item.budget_id } }, body: { action_on_exceed: 'warn' } })),
  repairPreview: (item: Repairable) =>
    expectData(
      api().POST('/api/doctor/repair', { body: undescribed({ kinds: repairKinds(item), dry_run: true }) }),
    ) as Promise<RepairOutcome>,
  repair: (item: Repairable) =>
    expectData(api().POST('/api/doctor/repair', { body: undescribed({ kinds: repairKinds(item) }) })) as Promise<RepairOutcome>,
};
