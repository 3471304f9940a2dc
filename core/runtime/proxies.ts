import * as z from 'zod';
import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { RuntimeCallError } from '../errors';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { runtimeCalls } from './calls';
import { fileNameIdSchema } from './ids';
import { requireKnownAgent } from './known-ids';
import { arrayField, isRecord } from './payload';

/** `source` of every proxy answer (spec 01 "Health and status"). */
export const RUNTIME_SOURCE = 'runtime-cli';

const filterValue = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$/, 'must be 1 to 64 letters, digits or ._:- characters, not starting with a dash');
const agentParam = fileNameIdSchema.default('main');
const limitParam = (max: number, fallback: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback);

/** GET /api/runtime/health: the runtime's own health document; failure or an error payload is a 502. */
export async function runtimeHealth(deps: Pick<Deps, 'runtime'>) {
  const doc = await deps.runtime.run(runtimeCalls.health());
  return {
    source: RUNTIME_SOURCE,
    ok: doc.ok === true,
    channels: isRecord(doc.channels) ? doc.channels : {},
    agents: arrayField(doc, 'agents', 'health'),
    heartbeatSeconds: typeof doc.heartbeatSeconds === 'number' ? doc.heartbeatSeconds : null,
    defaultAgentId: typeof doc.defaultAgentId === 'string' ? doc.defaultAgentId : null,
  };
}

const runtimeTasksQuery = z.strictObject({ runtime: filterValue.optional(), status: filterValue.optional() });

/** GET /api/runtime/tasks?runtime&status */
export async function runtimeTasks(deps: Pick<Deps, 'runtime'>, query: unknown) {
  const filter = parseQuery(runtimeTasksQuery, query);
  const tasks = arrayField(await deps.runtime.run(runtimeCalls.tasksList(filter)), 'tasks', 'tasks list');
  return { source: RUNTIME_SOURCE, count: tasks.length, tasks };
}

/** GET /api/runtime/tasks/audit */
export async function runtimeTaskAudit(deps: Pick<Deps, 'runtime'>) {
  const doc = await deps.runtime.run(runtimeCalls.tasksAudit());
  return { source: RUNTIME_SOURCE, stale: arrayField(doc, 'stale', 'tasks audit'), broken: arrayField(doc, 'broken', 'tasks audit') };
}

/** GET /api/runtime/agents: entries without a string id are the runtime's error, not ours to pass on. */
export async function runtimeAgents(deps: Pick<Deps, 'runtime'>) {
  const agents = arrayField(await deps.runtime.run(runtimeCalls.agentsList()), 'agents', 'agents list');
  if (!agents.every((a) => isRecord(a) && typeof a.id === 'string')) {
    throw new RuntimeCallError('runtime agents list: every agent needs a string id', 'bad_output');
  }
  return { source: RUNTIME_SOURCE, agents };
}

const memoryIndexQuery = z.strictObject({ agent: agentParam });

/**
 * POST /api/runtime/memory/index?agent: rebuilds an agent's memory index.
 * 1. validate; 2. require the database (the action is audited, so it never runs unaudited);
 * 3. call the runtime; 4. audit `runtime.memory_index`.
 */
export async function indexRuntimeMemory(deps: Deps, query: unknown) {
  const { agent } = parseQuery(memoryIndexQuery, query);
  const db = requireDb(deps.storage);
  await requireKnownAgent(deps, agent);
  const result = await deps.runtime.run(runtimeCalls.memoryIndex(agent));
  await db.transaction((tx) =>
    recordChange(deps, tx, {
      actor: OPERATOR_ACTOR,
      action: 'runtime.memory_index',
      entityType: 'runtime_memory',
      entityId: agent,
      newValue: { agentId: agent, indexedAt: deps.clock.now().toISOString() },
    }),
  );
  return { source: RUNTIME_SOURCE, success: true, agentId: agent, result };
}

const promoteQuery = z.strictObject({ agent: agentParam, limit: limitParam(1000, 10) });

/** GET /api/runtime/memory/promote?agent&limit: the candidates a promotion would apply (dry run). */
export async function memoryPromotionCandidates(deps: Pick<Deps, 'runtime'>, query: unknown) {
  const { agent, limit } = parseQuery(promoteQuery, query);
  await requireKnownAgent(deps, agent);
  const doc = await deps.runtime.run(runtimeCalls.memoryPromote(agent, limit, false));
  return { source: RUNTIME_SOURCE, agentId: agent, candidates: arrayField(doc, 'candidates', 'memory promote') };
}

const promoteBody = z.strictObject({ agent: agentParam, limit: z.number().int().min(1).max(1000).default(10) });

/** POST /api/runtime/memory/promote {agent, limit}: applies the promotion; audited like the index rebuild. */
export async function promoteRuntimeMemory(deps: Deps, body: unknown) {
  const { agent, limit } = parseInput(promoteBody, body ?? {}, 'body');
  const db = requireDb(deps.storage);
  await requireKnownAgent(deps, agent);
  const doc = await deps.runtime.run(runtimeCalls.memoryPromote(agent, limit, true));
  const promoted = arrayField(doc, 'promoted', 'memory promote --apply');
  await db.transaction((tx) =>
    recordChange(deps, tx, {
      actor: OPERATOR_ACTOR,
      action: 'runtime.memory_promote',
      entityType: 'runtime_memory',
      entityId: agent,
      newValue: { agentId: agent, limit, promotedCount: promoted.length },
    }),
  );
  return { source: RUNTIME_SOURCE, success: true, agentId: agent, promoted };
}
