import type { CappedCounts, Deps, TickSummary } from '../ports';
import { requireDb } from '../storage';
import { sqlList } from '../sql-text';
import { runStatusGroups, terminalRunStatuses } from './run-status';
import { activePauses } from '../agents/dispatch-controls';

const FAILURE_WINDOW_HOURS = 24;

export interface DispatcherStats {
  queue: Record<string, number> & { total: number };
  failure_rate: { window_hours: number; finished: number; failed: number; rate: number | null };
  route_count: number;
  last_tick: { started_at: Date; finished_at: Date; source: string; duration_ms: number } | null;
  last_tick_summary: TickSummary | null;
  ticks_last_hour: number;
  /** The last tick's runs left queued per full cap (zeros before any tick). */
  capped: CappedCounts;
  /** Agents whose dispatch is paused now, with until when and why. */
  paused_agents: Array<{ agent_id: string; dispatch_paused_until: Date; pause_reason: string | null }>;
}

/**
 * GET /api/workflow-runs/dispatcher/stats: run counts by status (every status present, verbatim),
 * the failure rate of runs finished in the last 24 hours (failed and timed_out over all finished),
 * the number of routes, and the last tick with its summary (budgetEnforcement included).
 */
export async function dispatcherStats(deps: Pick<Deps, 'storage' | 'clock'>): Promise<DispatcherStats> {
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const [byStatus, finished, routes, lastTick, recentTicks, pauses] = await Promise.all([
    db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM workflow_runs GROUP BY status ORDER BY status'),
    db.query<{ finished: number; failed: number }>(
      `SELECT count(*)::int AS finished, count(*) FILTER (WHERE status IN ${sqlList(runStatusGroups.failed)})::int AS failed
         FROM workflow_runs WHERE finished_at IS NOT NULL AND finished_at > $1::timestamptz - make_interval(hours => $2) AND status = ANY($3::text[])`,
      [now, FAILURE_WINDOW_HOURS, terminalRunStatuses],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_agent_routing'),
    db.query<{ started_at: Date; finished_at: Date; source: string; summary: TickSummary }>(
      'SELECT started_at, finished_at, source, summary FROM dispatcher_ticks ORDER BY id DESC LIMIT 1',
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dispatcher_ticks WHERE finished_at > $1::timestamptz - interval '1 hour'`, [
      now,
    ]),
    activePauses(db, now),
  ]);
  const queue = Object.fromEntries([...runStatusGroups.queue.map((s) => [s, 0]), ...byStatus.rows.map((r) => [r.status, r.n])]) as Record<
    string,
    number
  >;
  const total = byStatus.rows.reduce((a, r) => a + r.n, 0);
  const f = finished.rows[0] ?? { finished: 0, failed: 0 };
  const last = lastTick.rows[0];
  return {
    queue: { ...queue, total },
    failure_rate: {
      window_hours: FAILURE_WINDOW_HOURS,
      finished: f.finished,
      failed: f.failed,
      rate: f.finished ? Math.round((f.failed / f.finished) * 10_000) / 10_000 : null,
    },
    route_count: routes.rows[0]?.n ?? 0,
    last_tick: last
      ? { started_at: last.started_at, finished_at: last.finished_at, source: last.source, duration_ms: last.summary.durationMs }
      : null,
    last_tick_summary: last?.summary ?? null,
    ticks_last_hour: recentTicks.rows[0]?.n ?? 0,
    capped: last?.summary.capped ?? { workflowType: 0, agent: 0, fleet: 0 },
    paused_agents: pauses.map((p) => ({
      agent_id: p.agent_id,
      dispatch_paused_until: p.dispatch_paused_until!,
      pause_reason: p.pause_reason,
    })),
  };
}
