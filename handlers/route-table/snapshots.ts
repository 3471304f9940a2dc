import type { Route } from './route';

/** Full-state snapshots, restore, settings (spec 02). */
export const snapshotRoutes: readonly Route[] = [];
