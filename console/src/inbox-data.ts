import { apiBase, problemOf } from './api';
import type { Topic } from './queries';
import { authorizationHeader, sessionRefused } from './session';

/** GET /api/inbox (docs/console-api.md): what waits for the operator, most severe first. */
export type InboxAction = 'approve' | 'reject' | 'retry' | 'cancel' | 'raise_cap' | 'resume' | 'resume_dispatch' | 'repair';

export interface InboxItem {
  id: string;
  kind: string;
  severity: 'critical' | 'high' | 'medium' | 'low';
  title: string;
  detail: string;
  since: string | null;
  actions: InboxAction[];
  [field: string]: unknown;
}

export interface Inbox {
  generated_at: string;
  count: number;
  fleet: { live_runs: number; queued_runs: number; agents_online: number; agents_total: number };
  items: InboxItem[];
}

/** Everything an inbox item can be about: any of these changing may add or remove one. */
export const inboxTopics: readonly Topic[] = ['tasks', 'runs', 'approvals', 'budgets', 'agents', 'webhooks', 'doctor'];
export const INBOX_KEY = 'inbox';

export async function loadInbox(): Promise<Inbox> {
  let response: Response;
  try {
    response = await fetch(`${apiBase()}/api/inbox?limit=200`, { headers: { accept: 'application/json', ...authorizationHeader() } });
  } catch {
    throw new Error('the server did not answer');
  }
  if (response.status === 401) sessionRefused();
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) throw new Error(problemOf(body, response));
  return body as Inbox;
}
