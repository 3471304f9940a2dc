import { sessionTailQuerySchema } from '../../core/runtime/session-tail';
import type { Route } from '../route';

/**
 * Server-Sent Event streams (spec 01 Events). runnerOnly: the runner hands them to infra/events/event-streams.ts;
 * the handler only answers where streams are not served.
 */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/events', handler: 'events/stream-events', runnerOnly: true, contentType: 'text/event-stream' },
  { method: 'GET', path: '/api/events/stream', handler: 'events/stream-events', runnerOnly: true, contentType: 'text/event-stream' },
  // a runtime session's transcript as it grows (infra/events/session-tails.ts)
  {
    method: 'GET',
    path: '/api/rt/sessions/:sessionId/tail',
    handler: 'events/stream-events',
    runnerOnly: true,
    query: sessionTailQuerySchema,
    contentType: 'text/event-stream',
  },
];
