import type { Route } from './route';

/** Agent-runtime proxies, scheduled jobs, session reader, task sessions, chat (spec 01). */
export const runtimeRoutes: readonly Route[] = [];
