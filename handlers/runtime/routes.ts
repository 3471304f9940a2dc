import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { anyObject, records, runtimeHealthSchema, source } from '../openapi/report-schemas';
import type { Route } from '../route';

const runtimeTasksSchema = z.object({ source, count: z.number().int(), tasks: records });

/** `findings` and `summary` only from a runtime that reports findings (the released one). */
const runtimeTaskAuditSchema = z.object({
  source,
  stale: records,
  broken: records,
  findings: records.optional(),
  summary: anyObject.nullable().optional(),
});
const runtimeAgentsSchema = z.object({ source, agents: z.array(z.looseObject({ id: z.string() })) });
const memoryIndexedSchema = z.object({ source, success: z.literal(true), agentId: z.string(), result: z.unknown() });
const memoryCandidatesSchema = z.object({ source, agentId: z.string(), candidates: records });
const memoryPromotedSchema = z.object({ source, success: z.literal(true), agentId: z.string(), promoted: records });

/**
 * Agent-runtime proxies (spec 01): they answer the runtime's records as it gives them (arrays of
 * objects), under keys of our own.
 */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/runtime/health', handler: 'runtime/get-runtime-health', response: runtimeHealthSchema },
  { method: 'GET', path: '/api/runtime/tasks', handler: 'runtime/list-runtime-tasks', response: runtimeTasksSchema },
  { method: 'GET', path: '/api/runtime/tasks/audit', handler: 'runtime/get-runtime-task-audit', response: runtimeTaskAuditSchema },
  { method: 'GET', path: '/api/runtime/agents', handler: 'runtime/list-runtime-agents', agent: agentRead, response: runtimeAgentsSchema },
  { method: 'POST', path: '/api/runtime/memory/index', handler: 'runtime/index-runtime-memory', response: memoryIndexedSchema },
  { method: 'GET', path: '/api/runtime/memory/promote', handler: 'runtime/list-promotion-candidates', response: memoryCandidatesSchema },
  { method: 'POST', path: '/api/runtime/memory/promote', handler: 'runtime/promote-runtime-memory', response: memoryPromotedSchema },
];
