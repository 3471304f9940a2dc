import * as z from 'zod';
import { sessionEventDetailQuerySchema, sessionEventsQuerySchema } from '../../core/runtime/session-events';
import { runtimeSessionsQuerySchema } from '../../core/runtime/session-reader';
import { sessionSearchQuerySchema, sessionSearchSchema } from '../../core/runtime/session-search';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const runtimeSessionAgentsSchema = z.object({
  agents: z.array(z.object({ agentId: z.string(), sessions: z.number().int(), error: z.string().optional() })),
});

const runtimeSessionsSchema = z.object({ agentId: z.string().optional(), sessions: z.array(anyObject), total: z.number().int() });

const sessionDetailSchema = z.looseObject({
  sessionId: z.string(),
  agentId: z.string(),
  messages: z.array(anyObject),
  totalLines: z.number().int(),
  hasOlder: z.boolean(),
  oldestLine: z.number().int().nullable(),
  partial: z.boolean(),
  truncated: z.boolean(),
  transcriptAvailable: z.boolean(),
});

const sessionMessagesSchema = z.object({
  sessionId: z.string(),
  messages: z.array(anyObject),
  nextCursor: z.number().int().nullable(),
  hasMore: z.boolean(),
});

const sessionEventsSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  events: z.array(anyObject),
  nextAfterLine: z.number().int(),
  hasMore: z.boolean(),
  totalLines: z.number().int(),
  partial: z.boolean(),
  truncated: z.boolean(),
});

const sessionEventDetailSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  line: z.number().int(),
  found: z.literal(true),
  event: z.unknown(),
  extraEvents: z.array(z.unknown()),
  source: z.unknown(),
  totalLines: z.number().int(),
  truncated: z.boolean(),
});

/** The session reader: the runtime's sessions and transcripts (spec 01). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/rt/agents', handler: 'rt/list-agents', response: runtimeSessionAgentsSchema },
  {
    method: 'GET',
    path: '/api/rt/sessions',
    handler: 'rt/list-sessions',
    query: runtimeSessionsQuerySchema,
    response: runtimeSessionsSchema,
  },
  { method: 'GET', path: '/api/rt/sessions/:sessionId', handler: 'rt/get-session', response: sessionDetailSchema },
  { method: 'GET', path: '/api/rt/sessions/:sessionId/messages', handler: 'rt/list-session-messages', response: sessionMessagesSchema },
  {
    method: 'GET',
    path: '/api/rt/sessions/:sessionId/events',
    handler: 'rt/list-session-events',
    query: sessionEventsQuerySchema,
    response: sessionEventsSchema,
  },
  {
    method: 'GET',
    path: '/api/rt/sessions/:sessionId/events/:line',
    handler: 'rt/get-session-event',
    query: sessionEventDetailQuerySchema,
    response: sessionEventDetailSchema,
  },

  {
    method: 'GET',
    path: '/api/rt/sessions/:sessionId/search',
    handler: 'rt/search-session',
    query: sessionSearchQuerySchema,
    response: sessionSearchSchema,
  },
];
