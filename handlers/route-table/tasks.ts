import type { Route } from './route';

/** Tasks, views, agents, audit, history, legacy export/import, workspaces, org summary (spec 01). */
export const taskRoutes: readonly Route[] = [];
