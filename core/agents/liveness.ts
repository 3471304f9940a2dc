import * as z from 'zod';
import { recordChange } from '../audit/record-change';
import type { Deps } from '../ports';
import { queryInt, parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { agentNameSchema } from '../tasks/task';
import { jsonObjectSchema, parseInput } from '../validation';

export const agentStatuses = ['online', 'offline', 'error'] as const;
export type AgentStatus = (typeof agentStatuses)[number];

export const heartbeatSchema = z.strictObject({
  agent_name: agentNameSchema,
  status: z.enum(agentStatuses, { message: `must be one of ${agentStatuses.join(', ')}` }).default('online'),
  metadata: jsonObjectSchema.default({}),
});

/** An agent silent for longer than this counts as offline, unless the caller asks otherwise. */
export const DEFAULT_OFFLINE_AFTER_SECONDS = 300;

export const livenessQuerySchema = z.strictObject({
  offline_after_seconds: queryInt(1, 7 * 24 * 3600).default(DEFAULT_OFFLINE_AFTER_SECONDS),
});

export const livenessEntrySchema = z.object({
  agent_name: z.string(),
  /** Null only for an agent listed because its dispatch is paused before it ever sent a heartbeat. */
  last_seen_at: z.date().nullable(),
  status: z.enum(agentStatuses),
  /** What the agent itself said last; `status` differs when silence made it offline. */
  reported_status: z.enum(agentStatuses).nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** Dispatch to the agent is paused until then (its provider's quota or rate limit); null when not paused. */
  dispatch_paused_until: z.date().nullable(),
  pause_reason: z.string().nullable(),
});
export type LivenessEntry = z.infer<typeof livenessEntrySchema>;

/** Liveness as data: silence beyond the threshold is offline whatever was reported; otherwise the report stands. */
export function livenessOf(reported: AgentStatus, lastSeenAt: Date, now: Date, offlineAfterSeconds: number): AgentStatus {
  return now.getTime() - lastSeenAt.getTime() > offlineAfterSeconds * 1000 ? 'offline' : reported;
}

/**
 * POST /api/agents/heartbeat {agent_name, status?, metadata?}: upsert the agent's last sighting;
 * audited as `heartbeat`. A change of reported status is also published as agent-status-changed.
 */
export async function recordHeartbeat(deps: Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>, body: unknown): Promise<{ ok: true }> {
  const input = parseInput(heartbeatSchema, body ?? {}, 'heartbeat');
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  await db.transaction(async (tx) => {
    const before = await tx.query<{ status: AgentStatus; last_seen_at: Date; metadata: Record<string, unknown> }>(
      'SELECT status, last_seen_at, metadata FROM agent_heartbeats WHERE agent_name = $1 FOR UPDATE',
      [input.agent_name],
    );
    const { rows } = await tx.query(
      `INSERT INTO agent_heartbeats (agent_name, last_seen_at, status, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $2, $2)
       ON CONFLICT (agent_name) DO UPDATE SET last_seen_at = $2, status = $3, metadata = $4, updated_at = $2
       RETURNING agent_name, last_seen_at, status, metadata`,
      [input.agent_name, now, input.status, input.metadata],
    );
    const previous = before.rows[0];
    const changed = previous?.status !== input.status;
    await recordChange(deps, tx, {
      actor: input.agent_name,
      action: 'heartbeat',
      entityType: 'agent',
      entityId: input.agent_name,
      oldValue: previous ?? null,
      newValue: rows[0],
      event: changed
        ? {
            name: 'agent-status-changed',
            payload: { agent: input.agent_name, status: input.status, previous: previous?.status ?? null },
            channel: 'stream',
          }
        : undefined,
    });
  });
  return { ok: true };
}

/**
 * GET /api/agents/status?offline_after_seconds=: every agent that ever sent a heartbeat, by name,
 * with its dispatch pause; an agent paused without any heartbeat is listed too (offline, never seen).
 */
export async function listAgentLiveness(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown): Promise<{ agents: LivenessEntry[] }> {
  const { offline_after_seconds } = parseQuery(livenessQuerySchema, query);
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const { rows } = await db.query<{
    agent_name: string;
    last_seen_at: Date | null;
    status: AgentStatus | null;
    metadata: Record<string, unknown> | null;
    dispatch_paused_until: Date | null;
    pause_reason: string | null;
  }>(
    `SELECT coalesce(h.agent_name, p.agent_id) AS agent_name, h.last_seen_at, h.status, h.metadata, p.dispatch_paused_until, p.pause_reason
       FROM agent_heartbeats h
       FULL JOIN (SELECT agent_id, dispatch_paused_until, pause_reason FROM agent_dispatch_controls WHERE dispatch_paused_until > $1) p
         ON p.agent_id = h.agent_name
      ORDER BY 1`,
    [now],
  );
  return {
    agents: rows.map((r) => ({
      agent_name: r.agent_name,
      last_seen_at: r.last_seen_at,
      status: r.status && r.last_seen_at ? livenessOf(r.status, r.last_seen_at, now, offline_after_seconds) : 'offline',
      reported_status: r.status,
      metadata: r.metadata ?? {},
      dispatch_paused_until: r.dispatch_paused_until,
      pause_reason: r.pause_reason,
    })),
  };
}
