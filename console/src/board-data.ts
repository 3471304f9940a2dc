import type { operations } from '../../mcp/task-server-paths';
import { api, expectData, undescribed } from './api';

/** GET /api/views/board's answer and its tasks, as the OpenAPI document types them. */
export type Board = operations['viewsGetBoardView']['responses'][200]['content']['application/json'];
export type BoardTask = Board['columns'][string][number];
/** Why a card is stuck beyond what its own row says (an approval, a budget, its agent paused or silent), by task id. */
export type BoardStuck = NonNullable<Board['stuck']>;
export type Project = operations['projectsListProjects']['responses'][200]['content']['application/json'][number];

export async function loadBoard(projectId: string | undefined): Promise<Board> {
  return expectData(api().GET('/api/views/board', { params: { query: { include: 'stuck', ...(projectId ? { project_id: projectId } : {}) } } }));
}

/** GET /api/views/board/as-of (docs/console-api.md): the board as it stood at `at`, read-only. */
export type BoardAsOf = operations['viewsGetBoardAsOf']['responses'][200]['content']['application/json'];

export async function loadBoardAsOf(projectId: string | undefined, at: string): Promise<BoardAsOf> {
  return expectData(api().GET('/api/views/board/as-of', { params: { query: { at, ...(projectId ? { project_id: projectId } : {}) } } }));
}

export async function loadProjects(): Promise<Project[]> {
  return expectData(api().GET('/api/projects'));
}

export const moveTask = (id: string, status: string) => expectData(api().POST('/api/tasks/{id}/move', { params: { path: { id } }, body: undescribed({ status }) }));

export const createTask = (projectId: string, title: string, status: string) =>
  expectData(api().POST('/api/tasks', { body: { project_id: projectId, title, status: status as BoardTask['status'] } }));
