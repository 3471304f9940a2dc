import type { operations } from '../../mcp/task-server-paths';
import { api, apiBase, expectData, problemOf, undescribed } from './api';
import { authorizationHeader, sessionRefused } from './session';

/** GET /api/views/board's answer and its tasks, as the OpenAPI document types them. */
export type Board = operations['viewsGetBoardView']['responses'][200]['content']['application/json'];
export type BoardTask = Board['columns'][string][number];
export type Project = operations['projectsListProjects']['responses'][200]['content']['application/json'][number];

export async function loadBoard(projectId: string | undefined): Promise<Board> {
  return expectData(api().GET('/api/views/board', { params: { query: projectId ? { project_id: projectId } : {} } }));
}

/** GET /api/views/board/as-of (docs/console-api.md): the board as it stood at `at`, read-only. */
export async function loadBoardAsOf(projectId: string | undefined, at: string): Promise<Board & { as_of: string }> {
  const query = new URLSearchParams({ at, ...(projectId ? { project_id: projectId } : {}) });
  const response = await fetch(`${apiBase()}/api/views/board/as-of?${query}`, { headers: { accept: 'application/json', ...authorizationHeader() } });
  if (response.status === 401) sessionRefused();
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) throw new Error(problemOf(body, response));
  return body as Board & { as_of: string };
}

export async function loadProjects(): Promise<Project[]> {
  return expectData(api().GET('/api/projects'));
}

export const moveTask = (id: string, status: string) => expectData(api().POST('/api/tasks/{id}/move', { params: { path: { id } }, body: undescribed({ status }) }));

export const createTask = (projectId: string, title: string, status: string) =>
  expectData(api().POST('/api/tasks', { body: { project_id: projectId, title, status: status as BoardTask['status'] } }));
