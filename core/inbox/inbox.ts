import * as z from 'zod';
import { leaseLapsedSql } from '../agents/leases';
import { DEFAULT_OFFLINE_AFTER_SECONDS, livenessOf, type AgentStatus } from '../agents/liveness';
import { activePauses } from '../agents/dispatch-controls';
import { budgetColumns, type BudgetRow } from '../budgets/budget';
import { evaluateBudgets } from '../budgets/evaluation';
import { overCapEvent } from '../budgets/status';
import { doctorReport } from '../doctor/doctor';
import type { Db, Deps } from '../ports';
import { queryInt, parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { blockedTaskTypeSql, standingRunFailureSql } from '../workflows/blockers';
import { liveRunStatuses } from '../workflows/caps';
import { runStatusGroups } from '../workflows/run-status';
import { listStuckRuns } from '../workflows/run-queries';

export const inboxQuerySchema = z.strictObject({ limit: queryInt(1, 500).default(200) });

export const inboxSeverities = ['critical', 'high', 'medium', 'low'] as const;
export type InboxSeverity = (typeof inboxSeverities)[number];
export const inboxActions = ['approve', 'reject', 'retry', 'cancel', 'raise_cap', 'resume', 'resume_dispatch', 'repair'] as const;
export type InboxAction = (typeof inboxActions)[number];

/** Doctor findings of this kind are listed one task at a time as expired_claim items, not again as a finding. */
const EXPIRED_LEASE_CHECK = 'expired_task_lease';

const common = {
  /** `<kind>:<entity id>`: stable while the condition holds, so a list can key its items by it. */
  id: z.string(),
  severity: z.enum(inboxSeverities),
  title: z.string(),
  detail: z.string(),
  since: z.date().nullable(),
  actions: z.array(z.enum(inboxActions)),
};
const id = z.string();
const text = z.string().nullable();
const item = <K extends string, S extends z.ZodRawShape>(kind: K, shape: S) => z.object({ ...common, kind: z.literal(kind), ...shape });

/** One thing waiting for the operator, by kind (docs/console-api.md says when each appears and which route acts on it). */
export const inboxItemSchema = z.discriminatedUnion('kind', [
  item('approval', {
    approval_id: id,
    run_id: id,
    task_id: text,
    task_title: text,
    agent_id: text,
    action: z.string(),
    cost_so_far_usd: z.number().nullable(),
    executes: z.string(),
  }),
  item('failed_run', { run_id: id, task_id: text, task_title: text, agent_id: text, status: z.enum(runStatusGroups.failed), error: text }),
  item('stuck_run', { run_id: id, task_id: text, task_title: text, agent_id: text, status: z.string(), stuck_reason: z.string() }),
  item('budget', {
    budget_id: id,
    name: z.string(),
    state: z.enum(['warned', 'paused', 'hard_stopped']),
    spent_usd: z.number(),
    cap_usd: z.number().nullable(),
    warn_usd: z.number().nullable(),
    spent_tokens: z.number(),
    cap_tokens: z.number().nullable(),
  }),
  item('agent_paused', { agent_id: id, paused_until: z.date(), reason: text }),
  item('agent_silent', { agent_id: id, last_heartbeat_at: z.date().nullable(), live_runs: z.number().int() }),
  item('blocked_task', { task_id: id, task_title: z.string(), reason: z.string() }),
  item('expired_claim', { task_id: id, task_title: z.string(), agent_id: text, lease_expired_at: z.date() }),
  item('doctor_finding', { check: z.string(), count: z.number().int(), summary: z.string() }),
  item('webhook_failing', { webhook_id: id, url: z.string(), failures: z.number().int(), last_error: text }),
]);
export type InboxItem = z.infer<typeof inboxItemSchema>;

export const inboxSchema = z.object({
  generated_at: z.date(),
  /** Every item waiting, which may exceed items.length when `limit` cut the list. */
  count: z.number().int(),
  fleet: z.object({
    live_runs: z.number().int(),
    queued_runs: z.number().int(),
    agents_online: z.number().int(),
    agents_total: z.number().int(),
  }),
  items: z.array(inboxItemSchema),
});
export type Inbox = z.infer<typeof inboxSchema>;

/** How severe each kind is, as data; a budget by the state its action put it in. */
export const inboxSeverity = {
  approval: 'high',
  failed_run: 'high',
  stuck_run: 'high',
  budget: { hard_stopped: 'critical', paused: 'high', warned: 'medium' },
  agent_paused: 'medium',
  agent_silent: 'high',
  blocked_task: 'medium',
  expired_claim: 'medium',
  doctor_finding: 'low',
  webhook_failing: 'low',
} as const satisfies Record<InboxItem['kind'], InboxSeverity | Record<string, InboxSeverity>>;

const severityRank: Record<InboxSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** Most severe first, then the longest waiting (unknown `since` last), then by id: a total order, so pages are stable. */
export function inboxOrder(a: InboxItem, b: InboxItem): number {
  return (
    severityRank[a.severity] - severityRank[b.severity] ||
    (a.since?.getTime() ?? Infinity) - (b.since?.getTime() ?? Infinity) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

async function approvals(db: Db): Promise<InboxItem[]> {
  const { rows } = await db.query<Row>(
    `SELECT a.id, a.workflow_run_id, a.step_name, a.approval_type, a.created_at, r.workflow_type, r.task_id, t.title AS task_title,
            coalesce(r.owner_agent_id, r.target_agent_id) AS agent_id, r.cost_estimate
       FROM workflow_approvals a JOIN workflow_runs r ON r.id = a.workflow_run_id LEFT JOIN tasks t ON t.id = r.task_id
      WHERE a.status = 'pending'`,
  );
  return rows.map((r) => ({
    id: `approval:${r.id}`,
    kind: 'approval',
    severity: inboxSeverity.approval,
    title: `Approve ${r.step_name} of ${r.workflow_type}`,
    detail: `${r.approval_type} approval requested for run ${r.workflow_run_id}${r.task_title ? ` (task: ${r.task_title})` : ''}`,
    since: date(r.created_at),
    actions: ['approve', 'reject'],
    approval_id: String(r.id),
    run_id: String(r.workflow_run_id),
    task_id: str(r.task_id),
    task_title: str(r.task_title),
    agent_id: str(r.agent_id),
    action: String(r.step_name),
    cost_so_far_usd: num(r.cost_estimate),
    executes: `approving lets run ${r.workflow_run_id} (${r.workflow_type}) go on past step ${r.step_name} once no other approval of it is pending; rejecting fails the run`,
  }));
}

async function failedRuns(db: Db): Promise<InboxItem[]> {
  const { rows } = await db.query<Row>(
    `SELECT r.id, r.workflow_type, r.status, r.task_id, t.title AS task_title, coalesce(r.owner_agent_id, r.target_agent_id) AS agent_id,
            r.last_error, coalesce(r.finished_at, r.updated_at) AS since
       FROM workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id WHERE ${standingRunFailureSql}`,
  );
  return rows.map((r) => ({
    id: `failed_run:${r.id}`,
    kind: 'failed_run',
    severity: inboxSeverity.failed_run,
    title: `${r.workflow_type} ${r.status === 'timed_out' ? 'timed out' : 'failed'}${r.task_title ? `: ${r.task_title}` : ''}`,
    detail: String(r.last_error ?? 'no error recorded'),
    since: date(r.since),
    actions: ['retry'],
    run_id: String(r.id),
    task_id: str(r.task_id),
    task_title: str(r.task_title),
    agent_id: str(r.agent_id),
    status: r.status as (typeof runStatusGroups.failed)[number],
    error: str(r.last_error),
  }));
}

async function stuckRuns(deps: Pick<Deps, 'storage' | 'clock'>, db: Db): Promise<InboxItem[]> {
  const { runs } = await listStuckRuns(deps);
  const titles = await taskTitles(
    db,
    runs.map((r) => r.task_id),
  );
  return runs.map((r) => ({
    id: `stuck_run:${r.id}`,
    kind: 'stuck_run',
    severity: inboxSeverity.stuck_run,
    title: `${r.workflow_type} stuck (${r.stuck_reason.replace(/_/g, ' ')})`,
    detail: `run ${r.id} is ${r.status} and the next dispatcher tick would recover it${r.task_id && titles.get(r.task_id) ? ` (task: ${titles.get(r.task_id)})` : ''}`,
    since: r.heartbeat_at ?? r.claimed_at ?? r.dispatched_at ?? r.updated_at,
    actions: ['cancel'],
    run_id: r.id,
    task_id: r.task_id,
    task_title: (r.task_id && titles.get(r.task_id)) || null,
    agent_id: r.owner_agent_id ?? r.target_agent_id,
    status: r.status,
    stuck_reason: r.stuck_reason,
  }));
}

async function taskTitles(db: Db, ids: ReadonlyArray<string | null>): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((i): i is string => Boolean(i)))];
  if (wanted.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; title: string }>('SELECT id, title FROM tasks WHERE id = ANY($1::uuid[])', [wanted]);
  return new Map(rows.map((r) => [r.id, r.title]));
}

async function budgets(db: Db, now: Date): Promise<InboxItem[]> {
  const { rows } = await db.query<BudgetRow>(`SELECT ${budgetColumns} FROM budgets WHERE active`);
  const evaluated = await evaluateBudgets(db, rows, now);
  return evaluated
    .filter((e) => e.evaluation.atOrOver)
    .map(({ budget, spend, evaluation }) => {
      const state = overCapEvent[budget.action_on_exceed] as 'warned' | 'paused' | 'hard_stopped';
      const spent = evaluation.unit === 'usd' ? `$${evaluation.spent}` : `${evaluation.spent} tokens`;
      const cap = evaluation.unit === 'usd' ? `$${evaluation.cap}` : `${evaluation.cap} tokens`;
      return {
        id: `budget:${budget.id}`,
        kind: 'budget',
        severity: inboxSeverity.budget[state],
        title: `Budget ${budget.name} ${state.replace('_', ' ')}`,
        detail: `${spent} spent of ${cap} this ${budget.period} (${budget.scope}${budget.scope_id ? ` ${budget.scope_id}` : ''})`,
        since: null,
        actions: state === 'warned' ? ['raise_cap'] : ['raise_cap', 'resume'],
        budget_id: budget.id,
        name: budget.name,
        state,
        spent_usd: spend.usd,
        cap_usd: budget.cap_usd,
        warn_usd: null,
        spent_tokens: spend.tokens,
        cap_tokens: budget.cap_tokens,
      } satisfies InboxItem;
    });
}

async function pausedAgents(db: Db, now: Date): Promise<InboxItem[]> {
  return (await activePauses(db, now)).map((p) => ({
    id: `agent_paused:${p.agent_id}`,
    kind: 'agent_paused',
    severity: inboxSeverity.agent_paused,
    title: `Dispatch to ${p.agent_id} paused`,
    detail: `${p.pause_reason ?? 'paused'}; until ${p.dispatch_paused_until!.toISOString()}`,
    since: null,
    actions: ['resume_dispatch'],
    agent_id: p.agent_id,
    paused_until: p.dispatch_paused_until!,
    reason: p.pause_reason,
  }));
}

/**
 * Agents holding live runs (dispatched to them, claimed, running, waiting for approval) with no sign of
 * life for longer than the liveness rule's offline threshold (DEFAULT_OFFLINE_AFTER_SECONDS): neither an
 * agent heartbeat nor a claim, start or heartbeat of one of those runs, and none of them newer than that.
 */
export async function silentAgents(db: Db, now: Date): Promise<InboxItem[]> {
  const { rows } = await db.query<{
    agent_id: string;
    live_runs: number;
    reported: AgentStatus | null;
    seen: Date | null;
    signal: Date | null;
    oldest: Date;
  }>(
    `SELECT r.agent_id, count(*)::int AS live_runs, h.status AS reported, h.last_seen_at AS seen,
            greatest(h.last_seen_at, max(r.heartbeat_at), max(r.claimed_at), max(r.started_at)) AS signal,
            min(coalesce(r.dispatched_at, r.created_at)) AS oldest
       FROM (SELECT coalesce(owner_agent_id, target_agent_id) AS agent_id, heartbeat_at, claimed_at, started_at, dispatched_at, created_at
               FROM workflow_runs WHERE status = ANY($1::text[])) r
       LEFT JOIN agent_heartbeats h ON h.agent_name = r.agent_id
      WHERE r.agent_id IS NOT NULL
      GROUP BY r.agent_id, h.status, h.last_seen_at`,
    [liveRunStatuses],
  );
  return rows
    .filter((r) => livenessOf(r.reported ?? 'online', r.signal ?? r.oldest, now, DEFAULT_OFFLINE_AFTER_SECONDS) === 'offline')
    .map((r) => ({
      id: `agent_silent:${r.agent_id}`,
      kind: 'agent_silent',
      severity: inboxSeverity.agent_silent,
      title: `${r.agent_id} is silent`,
      detail: `holds ${r.live_runs} live run${r.live_runs === 1 ? '' : 's'}; last sign of life ${r.signal ? r.signal.toISOString() : 'never'}`,
      since: r.signal ?? r.oldest,
      actions: [],
      agent_id: r.agent_id,
      last_heartbeat_at: r.signal,
      live_runs: r.live_runs,
    }));
}

async function blockedTasks(db: Db): Promise<InboxItem[]> {
  const { rows } = await db.query<{ id: string; title: string; blocker_type: string; reason: string | null; since: Date }>(
    `SELECT t.id, t.title, ${blockedTaskTypeSql} AS blocker_type, nullif(t.metadata->>'blocked_reason', '') AS reason,
            coalesce(t.status_updated_at, t.updated_at) AS since
       FROM tasks t WHERE t.status = 'blocked' AND t.deleted_at IS NULL AND t.archived_at IS NULL`,
  );
  return rows.map((t) => ({
    id: `blocked_task:${t.id}`,
    kind: 'blocked_task',
    severity: inboxSeverity.blocked_task,
    title: `Blocked: ${t.title}`,
    detail: t.reason ?? t.blocker_type,
    since: t.since,
    actions: [],
    task_id: t.id,
    task_title: t.title,
    reason: t.reason ?? t.blocker_type,
  }));
}

async function expiredClaims(db: Db, now: Date): Promise<InboxItem[]> {
  const { rows } = await db.query<{ id: string; title: string; locked_by: string | null; lease_expires_at: Date }>(
    `SELECT t.id, t.title, t.locked_by, t.lease_expires_at FROM tasks t WHERE ${leaseLapsedSql('t')}`,
    [now],
  );
  return rows.map((t) => ({
    id: `expired_claim:${t.id}`,
    kind: 'expired_claim',
    severity: inboxSeverity.expired_claim,
    title: `Claim lapsed: ${t.title}`,
    detail: `${t.locked_by ?? 'an agent'}'s lease ended ${t.lease_expires_at.toISOString()}`,
    since: t.lease_expires_at,
    actions: ['repair'],
    task_id: t.id,
    task_title: t.title,
    agent_id: t.locked_by,
    lease_expired_at: t.lease_expires_at,
  }));
}

async function doctorFindings(deps: Pick<Deps, 'storage' | 'clock'>): Promise<InboxItem[]> {
  const { findings } = await doctorReport(deps);
  return findings
    .filter((f) => f.count > 0 && f.kind !== EXPIRED_LEASE_CHECK)
    .map((f) => ({
      id: `doctor_finding:${f.kind}`,
      kind: 'doctor_finding',
      severity: inboxSeverity.doctor_finding,
      title: `Doctor: ${f.count} ${f.description}`,
      detail: `repair: ${f.suggested_repair}`,
      since: null,
      actions: ['repair'],
      check: f.kind,
      count: f.count,
      summary: f.description,
    }));
}

async function failingWebhooks(db: Db): Promise<InboxItem[]> {
  const { rows } = await db.query<{ id: string; url: string; failures: number; last_error: string | null; since: Date | null }>(
    `SELECT w.id, w.url, f.failures, f.last_error, f.since
       FROM webhooks w
       CROSS JOIN LATERAL (SELECT count(*)::int AS failures, min(d.updated_at) AS since,
                                  (SELECT d2.last_error FROM webhook_deliveries d2 WHERE d2.webhook_id = w.id AND d2.status = 'failed' ORDER BY d2.seq DESC LIMIT 1) AS last_error
                             FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'failed') f
      WHERE w.failing AND w.active`,
  );
  return rows.map((w) => ({
    id: `webhook_failing:${w.id}`,
    kind: 'webhook_failing',
    severity: inboxSeverity.webhook_failing,
    title: `Webhook failing: ${w.url}`,
    detail: w.last_error ?? 'its last delivery failed',
    since: w.since,
    actions: [],
    webhook_id: w.id,
    url: w.url,
    failures: w.failures,
    last_error: w.last_error,
  }));
}

async function fleet(db: Db, now: Date): Promise<Inbox['fleet']> {
  const [runs, agents] = await Promise.all([
    db.query<{ live: number; queued: number }>(
      `SELECT count(*) FILTER (WHERE status = ANY($1::text[]))::int AS live, count(*) FILTER (WHERE status = 'queued')::int AS queued FROM workflow_runs`,
      [liveRunStatuses],
    ),
    db.query<{ status: AgentStatus; last_seen_at: Date }>('SELECT status, last_seen_at FROM agent_heartbeats'),
  ]);
  return {
    live_runs: runs.rows[0]!.live,
    queued_runs: runs.rows[0]!.queued,
    agents_online: agents.rows.filter((a) => livenessOf(a.status, a.last_seen_at, now, DEFAULT_OFFLINE_AFTER_SECONDS) === 'online').length,
    agents_total: agents.rows.length,
  };
}

/**
 * GET /api/inbox?limit=: what needs the operator, in one request (the console's home screen).
 * 1. Validate limit (1–500, default 200).
 * 2. Read every kind at once, each through the query that already defines it (pending approvals,
 *    standing run failures and blocked tasks as GET /api/blockers sees them, stuck runs as
 *    GET /api/workflow-runs/stuck lists them, budgets as GET /api/budgets evaluates them without
 *    recording ledger events, dispatch pauses, lapsed leases, the doctor's report, failing webhooks),
 *    and the fleet's counts. Reads only: nothing is written.
 * 3. Order by severity, then oldest first; count every item, answer the first `limit`.
 */
export async function getInbox(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown): Promise<Inbox> {
  const { limit } = parseQuery(inboxQuerySchema, query);
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const at = { ...deps, clock: { now: () => now } };
  const [kinds, counts] = await Promise.all([
    Promise.all([
      approvals(db),
      failedRuns(db),
      stuckRuns(at, db),
      budgets(db, now),
      pausedAgents(db, now),
      silentAgents(db, now),
      blockedTasks(db),
      expiredClaims(db, now),
      doctorFindings(at),
      failingWebhooks(db),
    ]),
    fleet(db, now),
  ]);
  const items = kinds.flat().sort(inboxOrder);
  return { generated_at: now, count: items.length, fleet: counts, items: items.slice(0, limit) };
}
