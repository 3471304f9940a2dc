import type { operations } from '../../mcp/task-server-paths';
import { api, expectData, undescribed } from './api';

/** The task page's reads and writes, each one route of the API. */
export type TaskDetail = operations['tasksGetTask']['responses'][200]['content']['application/json'];
type UpdateBody = NonNullable<operations['tasksUpdateTask']['requestBody']>['content']['application/json'];

const path = (id: string) => ({ params: { path: { id } } });

export const loadTask = (id: string) => expectData(api().GET('/api/tasks/{id}', path(id)));
export const loadRuns = (id: string) => expectData(api().GET('/api/workflow-runs', { params: { query: { task_id: id, limit: 20 } } }));
export const loadSessions = (id: string) => expectData(api().GET('/api/tasks/{id}/sessions', path(id)));

export const updateTask = (id: string, body: UpdateBody) => expectData(api().PATCH('/api/tasks/{id}', { ...path(id), body }));
export const changeDependencies = (id: string, change: { add?: string[]; remove?: string[] }) =>
  expectData(
    api().POST('/api/tasks/{id}/dependencies', { ...path(id), body: undescribed({ add: change.add ?? [], remove: change.remove ?? [] }) }),
  );
export const linkSubtask = (id: string, child: string) =>
  expectData(api().POST('/api/tasks/{id}/subtasks', { ...path(id), body: undescribed({ task_id: child }) }));
export const archiveTask = (id: string) => expectData(api().POST('/api/tasks/{id}/archive', path(id)));
export const deleteTask = (id: string) => expectData(api().DELETE('/api/tasks/{id}', path(id)));
export const retryTask = (id: string) => expectData(api().POST('/api/tasks/{id}/retry', path(id)));
