import { api, expectData, undescribed } from './api';
import type { InboxItem } from './inbox-data';

/**
 * What each Inbox button calls: the routes that already act on the thing an item is about
 * (docs/console-api.md lists them). Each answers when the server has done it; the item then
 * leaves the list through the stream's invalidation, as it does when someone else acts on it.
 */
const text = (item: InboxItem, field: string): string => {
  const value = item[field];
  if (typeof value !== 'string' || !value) throw new Error(`the item has no ${field}`);
  return value;
};

export const inboxActions = {
  approve: (item: InboxItem, note?: string) =>
    expectData(api().PATCH('/api/approvals/{id}', { params: { path: { id: text(item, 'approval_id') } }, body: { decision: 'approved', ...(note ? { note } : {}) } })),
  reject: (item: InboxItem, note?: string) =>
    expectData(api().PATCH('/api/approvals/{id}', { params: { path: { id: text(item, 'approval_id') } }, body: { decision: 'rejected', ...(note ? { note } : {}) } })),
  retry: (item: InboxItem) =>
    expectData(api().POST('/api/workflow-runs/{id}/override-failure', { params: { path: { id: text(item, 'run_id') } }, body: undescribed({ next_status: 'queued', reason: 'retried from the console' }) })),
  cancel: (item: InboxItem) =>
    expectData(api().POST('/api/workflow-runs/{id}/cancel', { params: { path: { id: text(item, 'run_id') } }, body: undescribed({ reason: 'cancelled from the console' }) })),
  resume_dispatch: (item: InboxItem) =>
    expectData(api().POST('/api/agents/{agent}/resume-dispatch', { params: { path: { agent: text(item, 'agent_id') } }, body: {} })),
  raise_cap: (item: InboxItem, capUsd: number) =>
    expectData(api().PATCH('/api/budgets/{id}', { params: { path: { id: text(item, 'budget_id') } }, body: { cap_usd: capUsd } })),
  resume: (item: InboxItem) => expectData(api().PATCH('/api/budgets/{id}', { params: { path: { id: text(item, 'budget_id') } }, body: { active: true } })),
  repairPreview: (item: InboxItem) => expectData(api().POST('/api/doctor/repair', { body: undescribed({ kinds: [text(item, 'check')], dry_run: true }) })),
  repair: (item: InboxItem) => expectData(api().POST('/api/doctor/repair', { body: undescribed({ kinds: [text(item, 'check')], dry_run: false }) })),
};
