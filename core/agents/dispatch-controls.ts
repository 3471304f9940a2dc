import * as z from 'zod';
import { recordChange } from '../audit/record-change';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { SYSTEM_ACTOR } from '../workflows/governance';
import { actorSchema, agentIdSchema } from '../workflows/run';
import { liveRunStatuses } from '../workflows/caps';

/**
 * Per-agent dispatch controls: a cap on the runs an agent holds at once, and a pause
 * of dispatch to the agent while its provider says its quota is exhausted or it is rate limited.
 * One row per agent in agent_dispatch_controls, created on first use.
 */

export interface AgentDispatchControls {
  agent_id: string;
  max_concurrent_runs: number | null;
  dispatch_paused_until: Date | null;
  pause_reason: string | null;
}

type ControlDeps = Pick<Deps, 'clock' | 'ids' | 'events'>;

const controlColumns = 'agent_id, max_concurrent_runs, dispatch_paused_until, pause_reason';

/** A pause whose time has passed is no pause: readers show null. */
function current(row: AgentDispatchControls | undefined, agentId: string, now: Date): AgentDispatchControls {
  const paused = row?.dispatch_paused_until && row.dispatch_paused_until.getTime() > now.getTime();
  return {
    agent_id: agentId,
    max_concurrent_runs: row?.max_concurrent_runs ?? null,
    dispatch_paused_until: paused ? row!.dispatch_paused_until : null,
    pause_reason: paused ? row!.pause_reason : null,
  };
}

async function findControls(db: Db, agentId: string, lock = false): Promise<AgentDispatchControls | undefined> {
  const { rows } = await db.query<AgentDispatchControls>(
    `SELECT ${controlColumns} FROM agent_dispatch_controls WHERE agent_id = $1${lock ? ' FOR UPDATE' : ''}`,
    [agentId],
  );
  return rows[0];
}

/** Agents whose dispatch is paused at `now`, with until when and why. */
export async function activePauses(db: Db, now: Date): Promise<AgentDispatchControls[]> {
  const { rows } = await db.query<AgentDispatchControls>(
    `SELECT ${controlColumns} FROM agent_dispatch_controls WHERE dispatch_paused_until > $1 ORDER BY agent_id`,
    [now],
  );
  return rows;
}

function statusEvent(agent: string, status: string, extra: Record<string, unknown>) {
  return { name: 'agent-status-changed', channel: 'stream' as const, payload: { agent, status, ...extra } };
}

export interface AgentLimits extends AgentDispatchControls {
  /** Runs the agent holds now (dispatched to it, claimed, running or waiting for approval). */
  live_runs: number;
}

async function limitsOf(db: Db, agentId: string, now: Date, row?: AgentDispatchControls): Promise<AgentLimits> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM workflow_runs WHERE target_agent_id = $1 AND status = ANY($2::text[])',
    [agentId, liveRunStatuses],
  );
  return { ...current(row ?? (await findControls(db, agentId)), agentId, now), live_runs: rows[0]?.n ?? 0 };
}

/** GET /api/agents/:agent/limits: the agent's cap (null: none), its live runs, and any dispatch pause. */
export async function getAgentLimits(deps: Pick<Deps, 'storage' | 'clock'>, rawAgent: unknown): Promise<AgentLimits> {
  const agent = parseInput(agentIdSchema, rawAgent, 'agent');
  return limitsOf(requireDb(deps.storage), agent, deps.clock.now());
}

const putLimitsSchema = z.strictObject({
  max_concurrent_runs: z
    .number({ message: 'must be a whole number of at least 1, or null for no cap' })
    .int('must be a whole number')
    .min(1, 'must be at least 1 (null removes the cap)')
    .max(100_000, 'must be at most 100000')
    .nullable(),
  actor: actorSchema,
});

/** PUT /api/agents/:agent/limits {max_concurrent_runs}: sets or (null) removes the agent's cap; the next tick obeys it. */
export async function putAgentLimits(deps: Deps, rawAgent: unknown, body: unknown): Promise<AgentLimits> {
  const agent = parseInput(agentIdSchema, rawAgent, 'agent');
  const input = parseInput(putLimitsSchema, body ?? {}, 'agent limits');
  return requireDb(deps.storage).transaction(async (tx) => {
    const before = await findControls(tx, agent, true);
    const now = deps.clock.now();
    const { rows } = await tx.query<AgentDispatchControls>(
      `INSERT INTO agent_dispatch_controls (agent_id, max_concurrent_runs, created_at, updated_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (agent_id) DO UPDATE SET max_concurrent_runs = $2, updated_at = $3 RETURNING ${controlColumns}`,
      [agent, input.max_concurrent_runs, now],
    );
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'limits_updated',
      entityType: 'agent',
      entityId: agent,
      oldValue: before ?? null,
      newValue: rows[0],
      event: { name: 'agent-limits-changed', channel: 'stream', payload: { agent, max_concurrent_runs: input.max_concurrent_runs } },
    });
    return limitsOf(tx, agent, now, rows[0]);
  });
}

/** The pause a quota or rate-limit failure asks for when it names no retry time. */
export const DEFAULT_QUOTA_PAUSE_SECONDS = 15 * 60;

/**
 * Pauses dispatch to `agent` until `until`, inside the caller's transaction. An agent already
 * paused stays paused as it was: failures inside one pause window neither extend it nor say so
 * again. Answers whether this call paused the agent.
 */
export async function pauseAgentDispatch(
  deps: ControlDeps,
  tx: Db,
  agent: string,
  pause: { until: Date; reason: string; runId: string },
): Promise<boolean> {
  const now = deps.clock.now();
  await tx.query(
    `INSERT INTO agent_dispatch_controls (agent_id, created_at, updated_at) VALUES ($1, $2, $2) ON CONFLICT (agent_id) DO NOTHING`,
    [agent, now],
  );
  const before = (await findControls(tx, agent, true))!;
  if (before.dispatch_paused_until && before.dispatch_paused_until.getTime() > now.getTime()) return false;
  const { rows } = await tx.query<AgentDispatchControls>(
    `UPDATE agent_dispatch_controls SET dispatch_paused_until = $2, pause_reason = $3, updated_at = $4 WHERE agent_id = $1 RETURNING ${controlColumns}`,
    [agent, pause.until, pause.reason, now],
  );
  await recordChange(deps, tx, {
    actor: SYSTEM_ACTOR,
    action: 'dispatch_paused',
    entityType: 'agent',
    entityId: agent,
    oldValue: before,
    newValue: { ...rows[0], run_id: pause.runId },
    event: statusEvent(agent, 'dispatch_paused', { until: pause.until.toISOString(), reason: pause.reason, runId: pause.runId }),
  });
  return true;
}

/**
 * POST /api/agents/:agent/resume-dispatch: the operator lifts a pause early (audited
 * `dispatch_resumed`). An agent that is not paused answers resumed: false and nothing is written,
 * so a retried call is harmless.
 */
export async function resumeAgentDispatch(deps: Deps, rawAgent: unknown, body: unknown): Promise<AgentLimits & { resumed: boolean }> {
  const agent = parseInput(agentIdSchema, rawAgent, 'agent');
  const { actor } = parseInput(z.strictObject({ actor: actorSchema }), body ?? {}, 'resume-dispatch');
  return requireDb(deps.storage).transaction(async (tx) => {
    const now = deps.clock.now();
    const before = await findControls(tx, agent, true);
    if (!before?.dispatch_paused_until || before.dispatch_paused_until.getTime() <= now.getTime()) {
      return { ...(await limitsOf(tx, agent, now, before)), resumed: false };
    }
    const { rows } = await tx.query<AgentDispatchControls>(
      `UPDATE agent_dispatch_controls SET dispatch_paused_until = NULL, pause_reason = NULL, updated_at = $2 WHERE agent_id = $1 RETURNING ${controlColumns}`,
      [agent, now],
    );
    await recordChange(deps, tx, {
      actor,
      action: 'dispatch_resumed',
      entityType: 'agent',
      entityId: agent,
      oldValue: before,
      newValue: rows[0],
      event: statusEvent(agent, 'dispatch_resumed', { previousUntil: before.dispatch_paused_until.toISOString() }),
    });
    return { ...(await limitsOf(tx, agent, now, rows[0])), resumed: true };
  });
}
