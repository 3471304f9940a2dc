import * as z from 'zod';
import { degradable } from '../costs/availability';
import { addDays, isoDay, roundUsd } from '../costs/usage';
import type { Db, Deps } from '../ports';
import { BUDGET_STOP_ERROR } from '../workflows/budget-stop';
import { budgetActions } from './budget';
import { budgetViewSchema, viewOf, type EvaluatedBudget } from './evaluation';
import { evaluateEveryBudget } from './queries';
import { dailySpendOf, type SpendDay } from './spend';

/**
 * The burn-down of each budget's current period (the console's Costs screen): spend day by day
 * against the budget's line, what live runs reserve above it, and a forecast to the period's end
 * at the period's pace. Read from the usage rollup (never the runs), so its cost does not grow with
 * the number of runs.
 */

const DAY_MS = 86_400_000;
/** The pace is spend over the time elapsed, at least this much of it: a period a minute old has no pace yet worth extrapolating. */
export const MIN_PACE_ELAPSED_MS = 3_600_000;

/** Where spend goes by the period's end at the pace it has kept so far. */
export const forecastSchema = z.object({
  /** Spend per day so far (the budget's unit). */
  pace_per_day: z.number(),
  /** Spend at the period's end if the pace holds. */
  at_end: z.number(),
  /** When spend reaches the cap at that pace, within the period; null when it does not, or already has. */
  reaches_cap_at: z.string().nullable(),
});
export type Forecast = z.infer<typeof forecastSchema>;

/**
 * The forecast of a period [start, end) at `now` with `spent` so far: the pace is spent over the
 * elapsed time (at least MIN_PACE_ELAPSED_MS), carried on to the end. Pure.
 */
export function forecastOf(input: { start: Date; end: Date; now: Date; spent: number; cap: number }): Forecast {
  const { start, end, spent, cap } = input;
  const now = new Date(Math.min(Math.max(input.now.getTime(), start.getTime()), end.getTime()));
  const elapsed = Math.max(now.getTime() - start.getTime(), MIN_PACE_ELAPSED_MS);
  const perMs = Math.max(spent, 0) / elapsed;
  const remaining = end.getTime() - now.getTime();
  const atEnd = spent + perMs * remaining;
  let reaches: string | null = null;
  if (spent < cap && perMs > 0) {
    const at = now.getTime() + (cap - spent) / perMs;
    if (at < end.getTime()) reaches = new Date(Math.round(at)).toISOString();
  }
  return { pace_per_day: perMs * DAY_MS, at_end: atEnd, reaches_cap_at: reaches };
}

/** One day of the period so far, cumulative to its end (today: to now), in the budget's unit. */
export const burnDownDaySchema = z.object({
  date: z.string(),
  /** Billed spend (USD), or tokens for a budget capped in tokens. */
  billed: z.number(),
  /** Billed plus subscription runs' shadow list cost (USD; the same as billed for a budget in tokens). */
  list: z.number(),
});
export type BurnDownDay = z.infer<typeof burnDownDaySchema>;

/**
 * Every day of [start, min(end, the day after now)) with the running totals of `days` (the days
 * that had usage, ascending, not cumulative). Pure.
 */
export function cumulativeDays(
  window: { start: Date; end: Date },
  now: Date,
  days: readonly SpendDay[],
  unit: 'usd' | 'tokens',
): BurnDownDay[] {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const out: BurnDownDay[] = [];
  let billed = 0;
  let list = 0;
  const last = Math.min(window.end.getTime(), Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  for (let at = window.start; at.getTime() < last; at = addDays(at, 1)) {
    const day = byDay.get(isoDay(at));
    if (day) {
      billed += unit === 'usd' ? day.billed : day.tokens;
      list += unit === 'usd' ? day.billed + day.shadow : day.tokens;
    }
    out.push({ date: isoDay(at), billed: unit === 'usd' ? roundUsd(billed) : billed, list: unit === 'usd' ? roundUsd(list) : list });
  }
  return out;
}

/** A run a budget's hard stop cancelled this period. */
export const stoppedRunSchema = z.object({
  id: z.string(),
  workflow_type: z.string(),
  agent_id: z.string().nullable(),
  finished_at: z.date(),
});

export const burnDownSchema = z.object({
  budget: budgetViewSchema,
  unit: z.enum(['usd', 'tokens']),
  window_start: z.string(),
  window_end: z.string(),
  days: z.array(burnDownDaySchema),
  /** What the budget counts so far (its basis: billed, or list), in its unit. */
  spent: z.number(),
  /** What live runs in scope reserve beyond what they reported, in the budget's unit (billed subscription runs reserve no USD). */
  reserved: z.number(),
  /** The budget's line: its cap, at which its action (warn, pause_new_runs, hard_stop) applies. */
  line: z.object({ action: z.enum(budgetActions), amount: z.number() }),
  /** Spend has reached the line. */
  past_line: z.boolean(),
  forecast: forecastSchema,
  /** The runs the budget's hard stop cancelled this period, newest first (at most STOPPED_RUNS_SHOWN). */
  stopped_runs: z.array(stoppedRunSchema),
});
export type BurnDown = z.infer<typeof burnDownSchema>;
export const burnDownsAnswerSchema = z.object({ available: z.literal(true), burn_downs: z.array(burnDownSchema), timestamp: z.string() });

export const STOPPED_RUNS_SHOWN = 20;

/**
 * The runs each hard_stop budget at or over its cap cancelled in its period: cancelled runs whose
 * stop reason names the budget (the dispatcher's and the heartbeat's reasons both do), read through
 * the finished-runs index over the period alone.
 */
async function stoppedRunsOf(db: Db, evaluated: readonly EvaluatedBudget[]): Promise<Map<string, z.infer<typeof stoppedRunSchema>[]>> {
  const stopped = new Map<string, z.infer<typeof stoppedRunSchema>[]>();
  const due = evaluated.filter((e) => e.budget.action_on_exceed === 'hard_stop' && e.evaluation.atOrOver);
  await Promise.all(
    due.map(async (e) => {
      const { rows } = await db.query<z.infer<typeof stoppedRunSchema>>(
        `SELECT r.id, r.workflow_type, coalesce(r.owner_agent_id, r.target_agent_id) AS agent_id, r.finished_at
           FROM workflow_runs r
          WHERE r.finished_at >= $1 AND r.finished_at < $2 AND r.status = 'cancelled'
            AND starts_with(r.last_error, $3) AND strpos(r.last_error, $4) > 0
          ORDER BY r.finished_at DESC, r.id LIMIT ${STOPPED_RUNS_SHOWN}`,
        [e.window.start, e.window.end, BUDGET_STOP_ERROR, e.budget.name],
      );
      stopped.set(e.budget.id, rows);
    }),
  );
  return stopped;
}

/** One budget's burn-down from its evaluation and its days. Pure. */
export function burnDownOf(e: EvaluatedBudget, days: readonly SpendDay[], stopped: BurnDown['stopped_runs'], now: Date): BurnDown {
  const { budget, window, evaluation } = e;
  const unit = evaluation.unit;
  const cumulative = cumulativeDays(window, now, days, unit);
  const spent = evaluation.spent;
  return {
    budget: viewOf(e),
    unit,
    window_start: window.start.toISOString(),
    window_end: window.end.toISOString(),
    days: cumulative,
    spent,
    reserved: unit === 'usd' ? e.reserved.usd : e.reserved.tokens,
    line: { action: budget.action_on_exceed, amount: evaluation.cap },
    past_line: evaluation.atOrOver,
    forecast: roundForecast(forecastOf({ start: window.start, end: window.end, now, spent, cap: evaluation.cap }), unit),
    stopped_runs: stopped,
  };
}

function roundForecast(f: Forecast, unit: 'usd' | 'tokens'): Forecast {
  const round = unit === 'usd' ? roundUsd : Math.round;
  return { ...f, pace_per_day: round(f.pace_per_day), at_end: round(f.at_end) };
}

/**
 * GET /api/budgets/burn-down: every budget (active first, then oldest first, as GET /api/budgets
 * lists them) with its current period's burn-down, in one request:
 * 1. the budgets, their spend and reservations (evaluateBudgets; due ledger events appended);
 * 2. their days from the usage rollup in one statement (dailySpendOf);
 * 3. for hard_stop budgets at their cap, the runs the stop cancelled;
 * 4. each forecast (forecastOf).
 */
export async function getBurnDowns(deps: Pick<Deps, 'storage' | 'clock' | 'events'>) {
  const now = deps.clock.now();
  return degradable(deps.storage, async (db) => {
    const evaluated = await evaluateEveryBudget(db, deps.events, now);
    const [days, stopped] = await Promise.all([
      dailySpendOf(
        db,
        evaluated.map((e) => ({ ...e.budget, start: e.window.start, end: e.window.end })),
      ),
      stoppedRunsOf(db, evaluated),
    ]);
    return {
      available: true as const,
      burn_downs: evaluated.map((e) => burnDownOf(e, days.get(e.budget.id) ?? [], stopped.get(e.budget.id) ?? [], now)),
      timestamp: now.toISOString(),
    };
  });
}
