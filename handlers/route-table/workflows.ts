import type { Route } from './route';

/** Workflow templates, runs, dispatcher, routing, approvals, artifacts, blockers, sessions, system scan, instrumentation (spec 03 and spec 01). */
export const workflowRoutes: readonly Route[] = [];
