import { settingByKey } from '../settings/catalog';
import { runStatusGroups } from './run-status';
import type { Db } from '../ports';

/**
 * Concurrency caps and dispatch pauses, as one admission check per dispatch batch.
 * A run is live while dispatched, claimed, running or waiting for approval; a cap counts the live
 * runs of its workflow type (routing max_concurrent), of its target agent (max_concurrent_runs),
 * or of the whole fleet (the DISPATCH_MAX_IN_FLIGHT setting). All three are rows the operator
 * changes through the API; the fleet's is a row of `settings` (PATCH /api/settings), which the
 * environment variable of the same name stands in for while no row is stored. Another gate (reservations, stop signals) sits
 * beside these as one more line of `refusals`, counted under the same lock.
 */

export const liveRunStatuses: readonly string[] = runStatusGroups.live;

/** Why a candidate stays queued this tick: one of the caps, or its agent's dispatch pause. */
export type Refusal = 'workflowType' | 'agent' | 'fleet' | 'agentPaused';

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
  /** The DISPATCH_MAX_IN_FLIGHT variable: the fleet cap while the settings table stores none; undefined: no fleet cap then. */
  maxInFlight?: number;
}

export const FLEET_CAP_SETTING = 'DISPATCH_MAX_IN_FLIGHT';

/** The stored fleet cap's SQL: its row of `settings` (jsonb; a number or numeric text), or null. */
const storedFleetCapSql = `(SELECT value FROM settings WHERE key = '${FLEET_CAP_SETTING}')`;

/** The fleet cap in force: the stored row when it is a valid cap, else the variable. */
function fleetCapOf(stored: unknown, settings: CapSettings): number | undefined {
  const candidate = typeof stored === 'string' && stored.trim() !== '' ? Number(stored) : stored;
  const parsed = settingByKey.get(FLEET_CAP_SETTING)!.schema.safeParse(candidate);
  return parsed.success ? (parsed.data as number) : settings.maxInFlight;
}

/**
 * One key for every dispatch transaction: caps are counted and spent under it, so two ticks on
 * two runners never both see room for the same last slot (the lock ends with the transaction).
 * A batch that found nothing to count against (no cap, no pause) holds it shared, so batches of
 * such a fleet run at once, and one that counts waits for every one of them to commit.
 */
const DISPATCH_ADMISSION_LOCK = 0x15_0d15;

/**
 * How a batch holds the admission lock: `exclusive` counts and spends caps; `shared` is for a
 * fleet with nothing to count against, and refuses to admit anything once it finds a cap or a
 * pause after all (AdmissionNeedsExclusive: the batch is to be done again, exclusive).
 */
export type AdmissionMode = 'exclusive' | 'shared';

/** A shared batch met a cap or a pause: nothing it decided may stand (its transaction rolls back). */
export class AdmissionNeedsExclusive extends Error {
  constructor() {
    super('a concurrency cap or dispatch pause applies: the batch is admitted under the exclusive lock');
  }
}

/** The fleet cap in force now (what the dispatcher counts against), for what shows it. */
export async function fleetCapInForce(db: Db, settings: CapSettings): Promise<number | undefined> {
  const { rows } = await db.query<{ fleet_cap: unknown }>(`SELECT ${storedFleetCapSql} AS fleet_cap`);
  return fleetCapOf(rows[0]?.fleet_cap, settings);
}

/** Rows of agent_dispatch_controls that count at $1: a cap, or a pause not yet over. */
const controlsInForceSql = 'max_concurrent_runs IS NOT NULL OR dispatch_paused_until > $1';

/** Whether anything caps or pauses dispatch now (asked before a tick's batches choose their mode). */
export async function dispatchIsCapped(db: Db, now: Date, settings: CapSettings): Promise<boolean> {
  const { rows } = await db.query<{ capped: boolean; fleet_cap: unknown }>(
    `SELECT EXISTS (SELECT 1 FROM workflow_agent_routing WHERE max_concurrent IS NOT NULL)
         OR EXISTS (SELECT 1 FROM agent_dispatch_controls WHERE ${controlsInForceSql}) AS capped,
            ${storedFleetCapSql} AS fleet_cap`,
    [now],
  );
  const row = rows[0];
  if (!row) return true;
  return row.capped || fleetCapOf(row.fleet_cap, settings) !== undefined;
}

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** Opens the admission check inside the dispatch transaction `tx`: takes the dispatch lock, then counts. */
export async function openDispatchAdmission(
  tx: Db,
  now: Date,
  settings: CapSettings,
  mode: AdmissionMode = 'exclusive',
): Promise<DispatchAdmission> {
  await tx.query(mode === 'shared' ? 'SELECT pg_advisory_xact_lock_shared($1)' : 'SELECT pg_advisory_xact_lock($1)', [
    DISPATCH_ADMISSION_LOCK,
  ]);
  const [live, controls, stored] = await Promise.all([
    // a shared batch counts nothing: it admits only while nothing caps
    mode === 'shared'
      ? { rows: [] }
      : tx.query<{ workflow_type: string; target_agent_id: string | null; n: number }>(
          `SELECT workflow_type, target_agent_id, count(*)::int AS n FROM workflow_runs WHERE status = ANY($1::text[]) GROUP BY 1, 2`,
          [liveRunStatuses],
        ),
    tx.query<{ agent_id: string; max_concurrent_runs: number | null; paused: boolean }>(
      `SELECT agent_id, max_concurrent_runs, coalesce(dispatch_paused_until > $1, false) AS paused FROM agent_dispatch_controls
        WHERE ${controlsInForceSql}`,
      [now],
    ),
    tx.query<{ fleet_cap: unknown }>(`SELECT ${storedFleetCapSql} AS fleet_cap`),
  ]);
  const maxInFlight = fleetCapOf(stored.rows[0]?.fleet_cap, settings);
  const byType = new Map<string, number>();
  const byAgent = new Map<string, number>();
  let fleet = 0;
  for (const r of live.rows) {
    byType.set(r.workflow_type, (byType.get(r.workflow_type) ?? 0) + r.n);
    if (r.target_agent_id) byAgent.set(r.target_agent_id, (byAgent.get(r.target_agent_id) ?? 0) + r.n);
    fleet += r.n;
  }
  // under the shared lock, counts of batches running at once are not in `live`: nothing may be counted
  if (mode === 'shared' && (maxInFlight !== undefined || controls.rows.length > 0)) throw new AdmissionNeedsExclusive();
  const agentCap = new Map(controls.rows.filter((c) => c.max_concurrent_runs !== null).map((c) => [c.agent_id, c.max_concurrent_runs!]));
  const paused = new Set(controls.rows.filter((c) => c.paused).map((c) => c.agent_id));

  const refusals = (c: AdmissionCandidate): Refusal | undefined => {
    if (paused.has(c.targetAgentId)) return 'agentPaused';
    if (maxInFlight !== undefined && fleet >= maxInFlight) return 'fleet';
    if (c.routeMaxConcurrent !== null && (byType.get(c.workflowType) ?? 0) >= c.routeMaxConcurrent) return 'workflowType';
    const cap = agentCap.get(c.targetAgentId);
    if (cap !== undefined && (byAgent.get(c.targetAgentId) ?? 0) >= cap) return 'agent';
    return undefined;
  };
  return {
    admit(candidate) {
      if (mode === 'shared' && candidate.routeMaxConcurrent !== null) throw new AdmissionNeedsExclusive();
      const refusal = refusals(candidate);
      if (refusal) return refusal;
      bump(byType, candidate.workflowType);
      bump(byAgent, candidate.targetAgentId);
      fleet++;
      return undefined;
    },
  };
}
