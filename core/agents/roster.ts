import * as z from 'zod';
import { billingModes } from '../costs/pricing';
import type { Deps } from '../ports';
import { parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { liveRunStatuses } from '../workflows/caps';
import { agentStatuses, livenessOf, livenessQuerySchema, type AgentStatus } from './liveness';

/**
 * GET /api/agents/roster: every agent the server knows, with what the console's Agents screen shows
 * of each in one read: its liveness as GET /api/agents/status says it, the runs it holds against its
 * cap and its dispatch pause as GET /api/agents/:agent/limits says them, and its billing mode (PUT
 * /api/agents/:agent/billing). Without it the screen would read the status, then each agent's limits.
 */
export const rosterQuerySchema = livenessQuerySchema;

export const rosterEntrySchema = z.object({
  agent_id: z.string(),
  /** Liveness (spec 01): online, offline or error; silence beyond offline_after_seconds is offline. */
  status: z.enum(agentStatuses),
  /** What the agent itself said last; null: it never sent a heartbeat. */
  reported_status: z.enum(agentStatuses).nullable(),
  last_seen_at: z.date().nullable(),
  /** Runs the agent holds now (dispatched to it, claimed, running or waiting for approval). */
  live_runs: z.number().int(),
  /** Its cap on live runs; null: none. */
  max_concurrent_runs: z.number().int().nullable(),
  /** Dispatch to it is paused until then (provider quota or rate limit); null when not paused. */
  dispatch_paused_until: z.date().nullable(),
  pause_reason: z.string().nullable(),
  /** Its own billing mode; null: its model's price entry decides (else metered). */
  billing: z.enum(billingModes).nullable(),
});
export type RosterEntry = z.infer<typeof rosterEntrySchema>;

export const rosterSchema = z.object({ agents: z.array(rosterEntrySchema) });

/**
 * An agent is known once it sent a heartbeat, has dispatch controls (a cap or a pause) or a profile,
 * or holds a live run. One statement; ordered by agent id.
 */
export async function listAgentRoster(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown): Promise<{ agents: RosterEntry[] }> {
  const { offline_after_seconds } = parseQuery(rosterQuerySchema, query);
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const { rows } = await db.query<Omit<RosterEntry, 'status' | 'reported_status'> & { reported_status: AgentStatus | null }>(
    `WITH live AS (
       SELECT target_agent_id AS agent_id, count(*)::int AS n FROM workflow_runs
        WHERE status = ANY($2::text[]) AND target_agent_id IS NOT NULL GROUP BY target_agent_id),
     known AS (
       SELECT agent_name AS agent_id FROM agent_heartbeats
       UNION SELECT agent_id FROM agent_dispatch_controls
       UNION SELECT agent_id FROM agent_profiles
       UNION SELECT agent_id FROM live)
     SELECT k.agent_id, h.status AS reported_status, h.last_seen_at, coalesce(l.n, 0) AS live_runs, c.max_concurrent_runs,
            CASE WHEN c.dispatch_paused_until > $1 THEN c.dispatch_paused_until END AS dispatch_paused_until,
            CASE WHEN c.dispatch_paused_until > $1 THEN c.pause_reason END AS pause_reason,
            p.billing
       FROM known k
       LEFT JOIN agent_heartbeats h ON h.agent_name = k.agent_id
       LEFT JOIN agent_dispatch_controls c ON c.agent_id = k.agent_id
       LEFT JOIN agent_profiles p ON p.agent_id = k.agent_id
       LEFT JOIN live l ON l.agent_id = k.agent_id
      ORDER BY k.agent_id`,
    [now, liveRunStatuses],
  );
  return {
    agents: rows.map((r) => ({
      agent_id: r.agent_id,
      status: r.reported_status && r.last_seen_at ? livenessOf(r.reported_status, r.last_seen_at, now, offline_after_seconds) : 'offline',
      reported_status: r.reported_status,
      last_seen_at: r.last_seen_at,
      live_runs: r.live_runs,
      max_concurrent_runs: r.max_concurrent_runs,
      dispatch_paused_until: r.dispatch_paused_until,
      pause_reason: r.pause_reason,
      billing: r.billing,
    })),
  };
}
