import type { Route } from './route';

/** Server-Sent Event streams (spec 01 Events); runnerOnly. */
export const streamRoutes: readonly Route[] = [];
