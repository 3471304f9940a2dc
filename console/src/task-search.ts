import type { operations } from '../../mcp/task-server-paths';
import { api, expectData } from './api';

/** GET /api/tasks/search (docs/console-api.md): tasks whose title holds the text (or whose id it is), best first, over all tasks. */
export type FoundTask = operations['tasksSearchTasks']['responses'][200]['content']['application/json']['tasks'][number];

export async function searchTasks(q: string): Promise<FoundTask[]> {
  return (await expectData(api().GET('/api/tasks/search', { params: { query: { q, limit: '20' } } }))).tasks;
}
