import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  timestamp: z.string(),
  task_storage: z.enum(['database', 'fallback-file']),
  storage_type: z.literal('postgresql'),
  storage_mode: z.string(),
  storage_label: z.string(),
  storage_note: z.string().nullish(),
  db_latency_ms: z.number(),
  uptime: z.number().int(),
  port: z.number().int(),
});

const statsSchema = z.object({ projects: z.number().int(), tasks: z.number().int(), completed: z.number().int() });
const gatewaySchema = z.looseObject({
  status: z.string(),
  healthy: z.boolean(),
  agent_count: z.number().int(),
  reason: z.string().optional(),
});

const healthStatusSchema = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  database: z.object({ status: z.string(), healthy: z.boolean(), mode: z.string() }),
  gateway: gatewaySchema,
  task_server: z.object({ healthy: z.boolean(), status: z.string() }),
  /** Active webhooks and the failing ones; absent without a database. */
  webhooks: z
    .object({
      healthy: z.boolean(),
      status: z.enum(['ok', 'failing']),
      active: z.number().int(),
      failing: z.array(z.object({ id: z.string(), url: z.string() })),
    })
    .optional(),
  /** Which way sessions and transcripts are read (the released runtime's gateway, or the CLI and the state files) and whether it answers. */
  runtime_access: z.object({
    way: z.enum(['gateway', 'cli+files']),
    healthy: z.boolean(),
    status: z.enum(['answering', 'not_answering']),
    failure: z.string().optional(),
    reason: z.string().optional(),
  }),
  checks: z.looseObject({ database: anyObject, gateway_sync: anyObject, task_server: anyObject }),
});

const routeListSchema = z.object({
  routes: z.array(z.object({ method: z.string(), path: z.string() })),
  total: z.number().int(),
});

const openApiSchema = z.looseObject({ openapi: z.string(), info: anyObject, paths: anyObject });

/** Health, stats, the route list, metrics and the OpenAPI document (the foundation). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/health', handler: 'health/get-health', public: true, response: healthSchema },
  { method: 'GET', path: '/api/stats', handler: 'health/get-stats', response: statsSchema },
  { method: 'GET', path: '/api/health-status', handler: 'health/get-health-status', agent: agentRead, response: healthStatusSchema },
  { method: 'GET', path: '/api/routes', handler: 'health/list-routes', agent: agentRead, response: routeListSchema },
  { method: 'GET', path: '/api/metrics', handler: 'health/get-metrics', contentType: 'text/plain' },
  { method: 'GET', path: '/api/openapi.json', handler: 'health/get-openapi', agent: agentRead, response: openApiSchema },
];
