import type { Db } from '../ports';

/**
 * Concurrency caps and dispatch pauses (issue 15), as one admission check per dispatch batch.
 * A run is live while dispatched, claimed, running or waiting for approval; a cap counts the live
 * runs of its workflow type (routing max_concurrent), of its target agent (max_concurrent_runs),
 * or of the whole fleet (DISPATCH_MAX_IN_FLIGHT). Another gate (reservations, stop signals) sits
 * beside these as one more line of `refusals`, counted under the same lock.
 */

export const liveRunStatuses: readonly string[] = ['dispatched', 'claimed', 'running', 'waiting_for_approval'];

/** Why a candidate stays queued this tick: one of the caps, or its agent's dispatch pause. */
export type Refusal = 'workflowType' | 'agent' | 'fleet' | 'agentPaused';

export interface CappedCounts {
  workflowType: number;
  agent: number;
  fleet: number;
}

export interface AdmissionCandidate {
  workflowType: string;
  targetAgentId: string;
  /** The routing entry's cap on live runs of this workflow type (null: none). */
  routeMaxConcurrent: number | null;
}

export interface DispatchAdmission {
  /** Undefined when the run may be dispatched (and it is then counted as live); else why not. */
  admit(candidate: AdmissionCandidate): Refusal | undefined;
}

export interface CapSettings {
  /** DISPATCH_MAX_IN_FLIGHT; undefined: no fleet cap. */
  maxInFlight?: number;
}

/**
 * One key for every dispatch transaction: caps are counted and spent under it, so two ticks on
 * two runners never both see room for the same last slot (the lock ends with the transaction).
 */
const DISPATCH_ADMISSION_LOCK = 0x15_0d15;

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** Opens the admission check inside the dispatch transaction `tx`: takes the dispatch lock, then counts. */
export async function openDispatchAdmission(tx: Db, now: Date, settings: CapSettings): Promise<DispatchAdmission> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [DISPATCH_ADMISSION_LOCK]);
  const [live, controls] = await Promise.all([
    tx.query<{ workflow_type: string; target_agent_id: string | null; n: number }>(
      `SELECT workflow_type, target_agent_id, count(*)::int AS n FROM workflow_runs WHERE status = ANY($1::text[]) GROUP BY 1, 2`,
      [liveRunStatuses],
    ),
    tx.query<{ agent_id: string; max_concurrent_runs: number | null; paused: boolean }>(
      `SELECT agent_id, max_concurrent_runs, coalesce(dispatch_paused_until > $1, false) AS paused FROM agent_dispatch_controls
        WHERE max_concurrent_runs IS NOT NULL OR dispatch_paused_until > $1`,
      [now],
    ),
  ]);
  const byType = new Map<string, number>();
  const byAgent = new Map<string, number>();
  let fleet = 0;
  for (const r of live.rows) {
    byType.set(r.workflow_type, (byType.get(r.workflow_type) ?? 0) + r.n);
    if (r.target_agent_id) byAgent.set(r.target_agent_id, (byAgent.get(r.target_agent_id) ?? 0) + r.n);
    fleet += r.n;
  }
  const agentCap = new Map(controls.rows.filter((c) => c.max_concurrent_runs !== null).map((c) => [c.agent_id, c.max_concurrent_runs!]));
  const paused = new Set(controls.rows.filter((c) => c.paused).map((c) => c.agent_id));

  const refusals = (c: AdmissionCandidate): Refusal | undefined => {
    if (paused.has(c.targetAgentId)) return 'agentPaused';
    if (settings.maxInFlight !== undefined && fleet >= settings.maxInFlight) return 'fleet';
    if (c.routeMaxConcurrent !== null && (byType.get(c.workflowType) ?? 0) >= c.routeMaxConcurrent) return 'workflowType';
    const cap = agentCap.get(c.targetAgentId);
    if (cap !== undefined && (byAgent.get(c.targetAgentId) ?? 0) >= cap) return 'agent';
    return undefined;
  };
  return {
    admit(candidate) {
      const refusal = refusals(candidate);
      if (refusal) return refusal;
      bump(byType, candidate.workflowType);
      bump(byAgent, candidate.targetAgentId);
      fleet++;
      return undefined;
    },
  };
}
