import type { operations } from '../../mcp/task-server-paths';
import { api, expectData, undescribed } from './api';

/** GET /api/views/board's answer and its tasks, as the OpenAPI document types them. */
export type Board = operations['viewsGetBoardView']['responses'][200]['content']['application/json'];
export type BoardTask = Board['columns'][string][number];
/** Why a card is stuck beyond what its own row says (an approval, a budget, its agent paused or silent), by task id. */
export type BoardStuck = NonNullable<Board['stuck']>;
export type Project = operations['projectsListProjects']['responses'][200]['content']['application/json'][number];

/**
 * The board with its stuck reasons; with `perColumn`, only the first tasks of each column, with
 * every column's count (`counts`) and the status of the dependencies it leaves out (docs/console-api.md).
 */
export async function loadBoard(projectId: string | undefined, perColumn?: number): Promise<Board> {
  const query = {
    include: 'stuck' as const,
    ...(projectId ? { project_id: projectId } : {}),
    ...(perColumn ? { limit_per_column: String(perColumn) } : {}),
  };
  return expectData(api().GET('/api/views/board', { params: { query } }));
}

/** GET /api/views/board/as-of (docs/console-api.md): the board as it stood at `at`, read-only. */
export type BoardAsOf = operations['viewsGetBoardAsOf']['responses'][200]['content']['application/json'];

export async function loadBoardAsOf(projectId: string | undefined, at: string): Promise<BoardAsOf> {
  return expectData(api().GET('/api/views/board/as-of', { params: { query: { at, ...(projectId ? { project_id: projectId } : {}) } } }));
}

export async function loadProjects(): Promise<Project[]> {
  return expectData(api().GET('/api/projects'));
}

export const moveTask = (id: string, status: string) =>
  expectData(api().POST('/api/tasks/{id}/move', { params: { path: { id } }, body: undescribed({ status }) }));

export const createTask = (projectId: string, title: string, status: string) =>
  expectData(api().POST('/api/tasks', { body: { project_id: projectId, title, status: status as BoardTask['status'] } }));
