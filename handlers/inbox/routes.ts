import { inboxQuerySchema, inboxSchema } from '../../core/inbox/inbox';
import type { Route } from '../route';

/** The console's inbox (docs/console-api.md). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/inbox', handler: 'inbox/get-inbox', query: inboxQuerySchema, response: inboxSchema },
];
