import { apiBase, problemOf } from './api';
import { authorizationHeader, sessionRefused } from './session';

/** GET /api/tasks/search (docs/console-api.md): tasks whose title holds the text, best first, over all tasks. */
export interface FoundTask {
  id: string;
  title: string;
  status: string;
  priority: string;
  owner: string | null;
  project_id: string;
  project_name: string | null;
  updated_at: string;
}

export async function searchTasks(q: string): Promise<FoundTask[]> {
  const response = await fetch(`${apiBase()}/api/tasks/search?${new URLSearchParams({ q, limit: '20' })}`, { headers: { accept: 'application/json', ...authorizationHeader() } });
  if (response.status === 401) sessionRefused();
  const body = (await response.json().catch(() => undefined)) as { tasks?: FoundTask[] } | undefined;
  if (!response.ok) throw new Error(problemOf(body, response));
  return body?.tasks ?? [];
}
