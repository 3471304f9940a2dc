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
import { arrayField, fieldsOf, isRecord } from './payload';

/** `source` of every proxy answer (spec 01 "Health and status"). */
export const RUNTIME_SOURCE = 'runtime-cli';

/**
 * The filters the runtime's `tasks list` accepts (it refuses any other value, so an unknown one is
 * the caller's mistake, answered 400 before the runtime is asked). The contract names no values;
 * these are the released runtime's.
 */
export const RUNTIME_TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost', 'blocked'] as const;
export const RUNTIME_TASK_KINDS = ['subagent', 'acp', 'cron', 'cli'] as const;
const oneOf = (values: readonly [string, ...string[]]) => z.enum(values, { message: `must be one of ${values.join(', ')}` });
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
  const doc = fieldsOf(await deps.runtime.run(runtimeCalls.health()));
  return {
    source: RUNTIME_SOURCE,
    ok: doc.ok === true,
    channels: isRecord(doc.channels) ? doc.channels : {},
    agents: arrayField(doc, 'agents', 'health'),
    heartbeatSeconds: typeof doc.heartbeatSeconds === 'number' ? doc.heartbeatSeconds : null,
    defaultAgentId: typeof doc.defaultAgentId === 'string' ? doc.defaultAgentId : null,
  };
}

const runtimeTasksQuery = z.strictObject({
  runtime: oneOf(RUNTIME_TASK_KINDS).optional(),
  status: oneOf(RUNTIME_TASK_STATUSES).optional(),
});

/** GET /api/runtime/tasks?runtime&status */
export async function runtimeTasks(deps: Pick<Deps, 'runtime'>, query: unknown) {
  const filter = parseQuery(runtimeTasksQuery, query);
  const tasks = arrayField(await deps.runtime.run(runtimeCalls.tasksList(filter)), 'tasks', 'tasks list');
  return { source: RUNTIME_SOURCE, count: tasks.length, tasks };
}

/**
 * GET /api/runtime/tasks/audit: `{stale, broken}`. The contract's runtime prints those two lists; the
 * released one prints `{findings: [{code, severity, …}], summary}`, whose `stale_*` findings are the
 * stale list and every other finding the broken one; its findings and summary are passed on as well.
 */
export async function runtimeTaskAudit(deps: Pick<Deps, 'runtime'>) {
  const doc = fieldsOf(await deps.runtime.run(runtimeCalls.tasksAudit()));
  if (doc.findings === undefined) {
    return { source: RUNTIME_SOURCE, stale: arrayField(doc, 'stale', 'tasks audit'), broken: arrayField(doc, 'broken', 'tasks audit') };
  }
  const findings = arrayField(doc, 'findings', 'tasks audit');
  const isStale = (f: unknown) => isRecord(f) && typeof f.code === 'string' && f.code.startsWith('stale_');
  return {
    source: RUNTIME_SOURCE,
    stale: findings.filter(isStale),
    broken: findings.filter((f) => !isStale(f)),
    findings,
    summary: isRecord(doc.summary) ? doc.summary : null,
  };
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
  const result = await memoryIndexResult(deps, agent);
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

/**
 * `memory index` as the contract has it (`--json`, any JSON object), or, when the runtime refuses
 * `--json` as the released one does, the same call without it: its line of text is `{output}` and
 * its warnings (stderr: a degraded vector index, say) are `{warnings}`.
 */
async function memoryIndexResult(deps: Pick<Deps, 'runtime'>, agent: string): Promise<unknown> {
  try {
    return await deps.runtime.run(runtimeCalls.memoryIndex(agent));
  } catch (err) {
    if (!(err instanceof RuntimeCallError && refusesJsonOption(err))) throw err;
  }
  const printed = fieldsOf(await deps.runtime.run(runtimeCalls.memoryIndexText(agent), { output: 'text' }));
  return { output: printed.text, warnings: printed.warnings };
}

/** The runtime's answer to an option it does not know, naming `--json`. */
function refusesJsonOption(err: RuntimeCallError): boolean {
  return err.failure === 'failed' && /(not recogni[sz]e|unknown|unrecogni[sz]ed) option\W+--json\b/i.test(err.message);
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
  const doc = fieldsOf(await deps.runtime.run(runtimeCalls.memoryPromote(agent, limit, true)));
  // The released runtime answers the applied promotion as apply.appliedCandidates.
  const promoted =
    isRecord(doc.apply) && doc.promoted === undefined
      ? arrayField(doc.apply, 'appliedCandidates', 'memory promote --apply')
      : arrayField(doc, 'promoted', 'memory promote --apply');
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
