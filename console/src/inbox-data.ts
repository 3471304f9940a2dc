import type { operations } from '../../mcp/task-server-paths';
import { api, expectData } from './api';
import type { Topic } from './queries';

/** GET /api/inbox (docs/console-api.md) as the OpenAPI document types it: what waits for the operator, most severe first. */
export type Inbox = operations['inboxGetInbox']['responses'][200]['content']['application/json'];
/** One item: a union discriminated by `kind`, each kind with its own fields. */
export type InboxItem = Inbox['items'][number];
export type InboxAction = InboxItem['actions'][number];
export type InboxItemOf<K extends InboxItem['kind']> = Extract<InboxItem, { kind: K }>;

/** Everything an inbox item can be about: any of these changing may add or remove one. */
export const inboxTopics: readonly Topic[] = ['tasks', 'runs', 'approvals', 'budgets', 'agents', 'webhooks', 'doctor'];
export const INBOX_KEY = 'inbox';

export async function loadInbox(): Promise<Inbox> {
  return expectData(api().GET('/api/inbox', { params: { query: { limit: '200' } } }));
}
