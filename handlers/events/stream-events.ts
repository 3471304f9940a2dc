import { httpHandler, json } from '../middleware/http-handler';

/**
 * GET /api/events, GET /api/events/stream and GET /api/rt/sessions/:sessionId/tail, when reached as
 * a plain handler (a Lambda, or a runner started without streams): Server-Sent Events need a
 * long-lived process, so they are served by the local runner (infra/events/event-streams.ts,
 * session-tails.ts) and this only says so.
 */
export const handler = httpHandler(async (event) =>
  json(404, {
    error: `${event.rawPath} is a Server-Sent Events stream served by the local runner (npm start, node dist/server.js), not here`,
    code: 'not_found',
  }),
);
