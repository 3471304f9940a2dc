import * as z from 'zod';
import { receiptColumns, receiptSchema, type Receipt } from '../actions/receipts';
import { billingModes } from '../costs/pricing';
import { sessionKeysOf } from '../costs/runtime-usage';
import { RuntimeCallError, NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { parseSessionKey } from '../runtime/ids';
import { readSessionIndex } from '../runtime/session-reader';
import { requireDb } from '../storage';
import { parseId } from '../validation';
import { approvalColumns, approvalSchema, type Approval } from './approvals';
import { artifactColumns, artifactSchema, type Artifact } from './artifacts';
import { blockerSchema, readBlockers } from './blockers';
import { runColumnsOf, workflowRunSchema, type WorkflowRun } from './run';
import { runStatusGroups, terminalRunStatuses, transitionFor, type RunTrigger } from './run-status';

/**
 * The run page of the console (docs/console-api.md) in one request: what GET /api/workflow-runs/:id,
 * /api/approvals, /api/artifacts, /api/actions/recent, /api/blockers and the task's sessions answer
 * one kind at a time, for one run.
 */

/** The operator's buttons on a run, each the transition its route asks for (start: the operator's dispatch of a queued run). */
const operatorActionTriggers = { start: 'dispatch', cancel: 'cancel', retry: 'override_to_queued' } as const satisfies Record<
  string,
  RunTrigger
>;
export const runOperatorActions = Object.keys(operatorActionTriggers) as [
  keyof typeof operatorActionTriggers,
  ...(keyof typeof operatorActionTriggers)[],
];
export type RunOperatorAction = (typeof runOperatorActions)[number];

/** Which of Start, Cancel and Retry the API allows on a run in `status`, by the transitions table. */
export function runActionsOf(status: string): RunOperatorAction[] {
  return runOperatorActions.filter((action) => transitionFor(status, operatorActionTriggers[action]) !== undefined);
}

/**
 * Where a run's cost comes from (docs/costs.md): reported by its agent, priced by the table, the
 * runtime's own; unpriced when it has tokens nobody could price (never free); none before any usage.
 */
export const priceSources = ['reported', 'table', 'runtime', 'unpriced', 'none'] as const;
export type PriceSource = (typeof priceSources)[number];

export function priceSourceOf(run: Pick<WorkflowRun, 'cost_source' | 'cost_estimate' | 'input_tokens' | 'output_tokens'>): PriceSource {
  if (run.cost_source) return run.cost_source;
  // a cost stored before runs recorded cost_source came from the agent: the price table priced nothing then
  if (run.cost_estimate !== null) return 'reported';
  return (run.input_tokens ?? 0) + (run.output_tokens ?? 0) > 0 ? 'unpriced' : 'none';
}

const nullableDate = z.date().nullable();
const duration = z.number().int().nullable();

export const runUsageSchema = z.object({
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cached_tokens: z.number().int().nullable(),
  cache_write_tokens: z.number().int().nullable(),
  model_id: z.string().nullable(),
  currency: z.string().nullable(),
  /** cost_estimate as stored: the list price of a subscription run (its shadow cost), else what it costs. */
  cost: z.number().nullable(),
  price_source: z.enum(priceSources),
  billing: z.enum(billingModes).nullable(),
  /** What the run adds to billed totals: nothing for a subscription run. */
  billed_cost: z.number().nullable(),
  /** A subscription run's list-price cost, which billed totals leave out; null for a metered run. */
  shadow_cost: z.number().nullable(),
});

export const runPageSchema = z.object({
  run: workflowRunSchema.extend({ task_title: z.string().nullable() }),
  actions: z.array(z.enum(runOperatorActions)),
  /** Each status the run entered, oldest first, from its audit trail; duration_ms runs to the next one (now for the current one, null once the run ended). */
  timeline: z.array(
    z.object({
      at: z.date(),
      status: z.string(),
      from: z.string().nullable(),
      actor: z.string(),
      action: z.string(),
      duration_ms: duration,
    }),
  ),
  steps: z.array(
    z.object({
      step_order: z.number().int(),
      step_name: z.string(),
      status: z.string(),
      started_at: nullableDate,
      finished_at: nullableDate,
      duration_ms: duration,
      error_message: z.string().nullable(),
    }),
  ),
  approvals: z.array(approvalSchema),
  artifacts: z.array(artifactSchema),
  usage: runUsageSchema,
  /** Governed actions (POST /api/actions/execute) on the run, on its approvals, and the dispatch that created it. */
  receipts: z.array(receiptSchema),
  blockers: z.array(blockerSchema),
  session: z.object({
    /** The session key the run holds (or held last); null before any claim. */
    key: z.string().nullable(),
    agent_id: z.string().nullable(),
    /** The transcript's id in the session reader (GET /api/rt/sessions/:sessionId/messages?agent=); null when the runtime does not know the key. */
    session_id: z.string().nullable(),
    /** Keys the run held before it went back to the queue, newest first. */
    earlier_keys: z.array(z.string()),
    /** The run has not ended: its transcript may still grow. */
    live: z.boolean(),
  }),
  generated_at: z.date(),
});
export type RunPage = z.infer<typeof runPageSchema>;

/** More than any run page shows; a run retried in a loop keeps its page bounded. */
const TIMELINE_LIMIT = 500;
const RECEIPTS_LIMIT = 200;

const ms = (from: Date | null, to: Date | null) => (from && to ? Math.max(0, to.getTime() - from.getTime()) : null);

/**
 * GET /api/workflow-runs/:id/page. Steps: 1. validate the id (400); 2. the run with its task's title
 * (404 when unknown); 3. side by side: its status changes (audit rows whose status differs from the
 * row before), steps, approvals, artifacts, receipts and blockers; 4. its session key resolved to a
 * transcript id through the agent's session index (left null when the runtime cannot say).
 */
export async function getRunPage(deps: Pick<Deps, 'storage' | 'clock' | 'runtime'>, rawId: unknown): Promise<RunPage> {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const { rows } = await db.query<WorkflowRun & { task_title: string | null }>(
    `SELECT ${runColumnsOf('r')}, t.title AS task_title FROM workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id WHERE r.id = $1`,
    [id],
  );
  const run = rows[0];
  if (!run) throw new NotFoundError(`workflow run ${id} not found`);
  const [changes, steps, approvals, artifacts, receipts, blockers, session] = await Promise.all([
    db.query<{ at: Date; status: string; from: string | null; actor: string; action: string }>(
      `SELECT timestamp AS at, new_value->>'status' AS status, old_value->>'status' AS "from", actor, action
         FROM audit_log
        WHERE entity_type = 'workflow_run' AND entity_id = $1 AND new_value ? 'status'
          AND (old_value->>'status') IS DISTINCT FROM (new_value->>'status')
        ORDER BY timestamp, id LIMIT ${TIMELINE_LIMIT}`,
      [id],
    ),
    db.query<{
      step_order: number;
      step_name: string;
      status: string;
      started_at: Date | null;
      finished_at: Date | null;
      error_message: string | null;
    }>(
      'SELECT step_order, step_name, status, started_at, finished_at, error_message FROM workflow_steps WHERE run_id = $1 ORDER BY step_order',
      [id],
    ),
    db.query<Approval>(`SELECT ${approvalColumns} FROM workflow_approvals WHERE workflow_run_id = $1 ORDER BY created_at, id`, [id]),
    db.query<Artifact>(`SELECT ${artifactColumns} FROM workflow_artifacts WHERE workflow_run_id = $1 ORDER BY created_at, id`, [id]),
    receiptsOf(db, run),
    readBlockers(db, now, { runId: id, taskId: run.task_id }),
    sessionOf(deps, run),
  ]);
  const ended = terminalRunStatuses.includes(run.status);
  const timeline = changes.rows.map((c, i) => {
    const next = changes.rows[i + 1];
    return { ...c, duration_ms: next ? ms(c.at, next.at) : ended ? null : ms(c.at, now) };
  });
  const subscription = run.billing === 'subscription';
  return {
    run,
    actions: runActionsOf(run.status),
    timeline,
    steps: steps.rows.map((s) => ({ ...s, duration_ms: ms(s.started_at, s.finished_at ?? (s.started_at && !ended ? now : null)) })),
    approvals: approvals.rows,
    artifacts: artifacts.rows,
    usage: {
      input_tokens: run.input_tokens,
      output_tokens: run.output_tokens,
      cached_tokens: run.cached_tokens,
      cache_write_tokens: run.cache_write_tokens,
      model_id: run.model_id,
      currency: run.currency,
      cost: run.cost_estimate,
      price_source: priceSourceOf(run),
      billing: run.billing,
      billed_cost: subscription ? 0 : run.cost_estimate,
      shadow_cost: subscription ? run.cost_estimate : null,
    },
    receipts,
    blockers,
    session: { ...session, live: runStatusGroups.active.some((s) => s === run.status) },
    generated_at: now,
  };
}

/**
 * The receipts of governed actions on the run: those that target it (run.cancel, run.redispatch),
 * its approvals (approval.decide), and the run.dispatch of its task that created it.
 */
async function receiptsOf(db: Db, run: WorkflowRun): Promise<Receipt[]> {
  const { rows } = await db.query<Receipt>(
    `SELECT ${receiptColumns} FROM action_receipts
      WHERE target_id = $1
         OR target_id IN (SELECT a.id::text FROM workflow_approvals a WHERE a.workflow_run_id = $1::uuid)
         OR (target_id = $2 AND kind = 'run.dispatch' AND detail->'result'->>'new_run_id' = $1)
      ORDER BY created_at, action_id LIMIT ${RECEIPTS_LIMIT}`,
    [run.id, run.task_id ?? ''],
  );
  return rows;
}

/** The run's session key and, through its agent's session index, the transcript the session reader reads. */
async function sessionOf(deps: Pick<Deps, 'runtime'>, run: WorkflowRun): Promise<Omit<RunPage['session'], 'live'>> {
  const [key = null, ...earlier] = sessionKeysOf(run);
  const agentId = parseSessionKey(key)?.agentId ?? null;
  let sessionId: string | null = null;
  if (key && agentId && deps.runtime.files) {
    try {
      sessionId = (await readSessionIndex(deps.runtime.files, agentId))?.find((s) => s.key === key)?.sessionId ?? null;
    } catch (err) {
      // an unreadable index leaves the session unresolved: the page shows its key and no transcript
      if (!(err instanceof RuntimeCallError)) throw err;
    }
  }
  return { key, agent_id: agentId, session_id: sessionId, earlier_keys: earlier };
}
