import { SYSTEM_ACTOR } from '../workflows/governance';
import { NotFoundError, RuntimeCallError } from '../errors';
import type { Db, Deps, RuntimeDocument } from '../ports';
import { parseSessionKey } from '../runtime/ids';
import { isRecord, stringOrNull } from '../runtime/payload';
import { listRuntimeSessions, sessionMessages, MESSAGES_MAX_LIMIT } from '../runtime/session-reader';
import { requireDb } from '../storage';
import { usageColumns } from '../workflows/usage-report';
import { changeRun } from '../workflows/run-store';
import { runColumns, runColumnsOf, type WorkflowRun } from '../workflows/run';
import { terminalRunStatuses } from '../workflows/run-status';
import { roundUsd } from './usage';

/**
 * Costs from the runtime itself (docs/costs.md "Usage the runtime reports"). The released runtime
 * writes `usage` {input, output, cacheRead, cacheWrite, totalTokens, cost: {total, …}} on every
 * assistant message of a session, and answers a turn's total in `result.meta.agentMeta.usage`.
 * Its `input` leaves the cache reads and writes out; ours counts them in (cached_tokens and
 * cache_write_tokens are parts of input_tokens, core/costs/pricing.ts), so they are added back.
 */
export interface RuntimeUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  /** USD as the runtime priced it (usage.cost.total); null when it gave tokens alone. */
  cost: number | null;
  model_id: string | null;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/** The runtime's usage record as ours; undefined when it holds no tokens and no cost. */
export function runtimeUsageOf(usage: unknown, model: unknown): RuntimeUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const cost =
    isRecord(usage.cost) && typeof usage.cost.total === 'number' && Number.isFinite(usage.cost.total) && usage.cost.total >= 0
      ? usage.cost.total
      : null;
  const cached = count(usage.cacheRead);
  const written = count(usage.cacheWrite);
  const found: RuntimeUsage = {
    input_tokens: count(usage.input) + cached + written,
    output_tokens: count(usage.output),
    cached_tokens: cached,
    cache_write_tokens: written,
    cost,
    model_id: stringOrNull(model),
  };
  return found.input_tokens + found.output_tokens > 0 || cost !== null ? found : undefined;
}

/** Two usages as one: tokens added; the cost known only when both are (a part without one is not free). */
function addUsage(a: RuntimeUsage | undefined, b: RuntimeUsage): RuntimeUsage {
  if (!a) return b;
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_tokens: a.cached_tokens + b.cached_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    cost: a.cost !== null && b.cost !== null ? roundUsd(a.cost + b.cost) : null,
    model_id: b.model_id ?? a.model_id,
  };
}

/**
 * The usage of one agent turn (`agent … --json`): `result.meta.agentMeta.usage` with its model,
 * its cost from `usage.cost.total`, else `agentMeta.costUsd`. Undefined for the contract's answer
 * (`{reply}`), which carries none.
 */
export function turnUsageOf(doc: RuntimeDocument): RuntimeUsage | undefined {
  const result = !Array.isArray(doc) && isRecord(doc.result) ? doc.result : undefined;
  const meta = result && isRecord(result.meta) ? result.meta : undefined;
  const agentMeta = meta && isRecord(meta.agentMeta) ? meta.agentMeta : undefined;
  if (!agentMeta) return undefined;
  const usage = runtimeUsageOf(agentMeta.usage, agentMeta.model);
  if (!usage || usage.cost !== null) return usage;
  const costUsd = agentMeta.costUsd;
  return typeof costUsd === 'number' && Number.isFinite(costUsd) && costUsd >= 0 ? { ...usage, cost: costUsd } : usage;
}

/** As the usage write takes it (core/workflows/usage-report.ts), at the instant it counts. */
export function usageReportOf(usage: RuntimeUsage, at: Date) {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cached_tokens: usage.cached_tokens,
    cache_write_tokens: usage.cache_write_tokens,
    ...(usage.model_id ? { model_id: usage.model_id } : {}),
    ...(usage.cost !== null ? { cost_estimate: usage.cost, currency: 'USD' } : {}),
    reported_at: at.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Runs costed from their sessions

/** Runs read per pass: each costs a session listing and its transcript's pages. */
export const RUNTIME_USAGE_BATCH = 20;
/** How long after its finish a run is still costed from the runtime; older runs leave the queue unread. */
export const RUNTIME_USAGE_HORIZON_MS = 2 * 86_400_000;
/** A pass starts no further run after this long: a slow runtime delays the next tick by a little, never by a batch of reads. */
export const RUNTIME_USAGE_PASS_MS = 5_000;

export interface RuntimeUsagePass {
  /** Finished runs without usage whose sessions were read. */
  examined: number;
  /** Of those, runs that took the runtime's usage (one audit row `usage_from_runtime` each). */
  costed: number;
  /** Runs whose sessions hold no usage in the run's time (left as they are, not read again). */
  withoutUsage: number;
  /** Runs whose session the runtime does not know (not read again). */
  withoutSession: number;
  /** Set when the runtime did not answer: the pass stopped there, and the rest wait for the next one. */
  unavailable?: string;
}

type Candidate = WorkflowRun & { window_from: Date };

/** The session keys a run held, newest first, each once (the run's own, then those it left when requeued). */
export function sessionKeysOf(run: Pick<WorkflowRun, 'gateway_session_id' | 'claim_session_id' | 'session_history'>): string[] {
  return [
    ...new Set(
      [run.gateway_session_id, run.claim_session_id, ...[...(run.session_history ?? [])].reverse()].filter((k): k is string => !!k),
    ),
  ];
}

/** A message's instant: the entry's ISO timestamp, or epoch milliseconds. */
function instantOf(value: unknown): number | null {
  const ms = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(ms) ? ms : null;
}

interface SessionUsage {
  usage: RuntimeUsage | undefined;
  messages: number;
  /** The instant of the last message counted. */
  lastAt: number | null;
}

/**
 * The usage of the assistant messages one session holds between `from` and `to`, read through the
 * session reader (its listing finds the session of the key, its message pages the messages), so
 * it reads wherever the reader does. Every assistant message counts, those of rewound branches
 * too: a rewind drops a reply from the conversation, not from the bill. Undefined when the
 * runtime knows no such session.
 */
async function sessionUsage(
  deps: Pick<Deps, 'runtime' | 'clock'>,
  sessionKey: string,
  from: number,
  to: number,
): Promise<SessionUsage | undefined> {
  const agentId = parseSessionKey(sessionKey)?.agentId;
  if (!agentId) return undefined;
  let sessionId: string | undefined;
  try {
    const listed = await listRuntimeSessions(deps, { agent: agentId });
    sessionId = listed.sessions.find((s) => s.key === sessionKey)?.sessionId;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
  if (!sessionId) return undefined;
  const found: SessionUsage = { usage: undefined, messages: 0, lastAt: null };
  let after = 0;
  for (;;) {
    let page;
    try {
      page = await sessionMessages(deps, sessionId, { agent: agentId, after: String(after), limit: String(MESSAGES_MAX_LIMIT) });
    } catch (err) {
      if (err instanceof NotFoundError) return after === 0 ? undefined : found;
      throw err;
    }
    for (const entry of page.messages) {
      const at = instantOf(entry.timestamp);
      const usage = entry.assistant && runtimeUsageOf(entry.assistant.usage, entry.assistant.model);
      if (!usage || at === null || at < from || at > to) continue;
      found.usage = addUsage(found.usage, usage);
      found.messages++;
      found.lastAt = Math.max(found.lastAt ?? at, at);
    }
    if (!page.hasMore || page.nextCursor === null) return found;
    after = page.nextCursor;
  }
}

async function noteChecked(
  db: Db,
  runId: string,
  outcome: 'costed' | 'no_usage' | 'no_session' | 'reported',
  sessionKey: string | null,
  messages: number,
  at: Date,
) {
  await db.query('DELETE FROM run_runtime_usage_pending WHERE run_id = $1', [runId]);
  await db.query(
    `INSERT INTO run_runtime_usage (run_id, outcome, session_key, messages, checked_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (run_id) DO UPDATE SET outcome = excluded.outcome, session_key = excluded.session_key, messages = excluded.messages, checked_at = excluded.checked_at`,
    [runId, outcome, sessionKey, messages, at],
  );
}

/**
 * The runtime pass of every dispatcher pass (core/workflows/dispatcher.ts dispatcherPass). Steps:
 * 1. the oldest of the queued runs (run_runtime_usage_pending, migration 1110: finished, holding a
 *    session key and no usage at all, not looked at yet), at most `batch`; those that finished
 *    before RUNTIME_USAGE_HORIZON_MS leave the queue unread;
 * 2. for each, the usage of its sessions' assistant messages written between its claim (else its
 *    start, dispatch or creation) and its finish, read through the session reader;
 * 3. in one transaction per run, the run locked and checked again to hold no usage (an agent that
 *    reported meanwhile wins, outcome `reported`): its usage written as a usage report at the
 *    last message's instant (priced as any: a cost the runtime gave is kept, cost_source
 *    'runtime'; tokens alone are priced by the table or stay unpriced), audited
 *    `usage_from_runtime` with a run-updated event; and its run_runtime_usage row, so it is
 *    never read, nor counted, twice.
 * A runtime that does not answer stops the pass, as does RUNTIME_USAGE_PASS_MS spent; the runs
 * left are read by a later pass.
 */
export async function costRunsFromRuntime(deps: Deps, batch = RUNTIME_USAGE_BATCH): Promise<RuntimeUsagePass> {
  const db = requireDb(deps.storage);
  const pass: RuntimeUsagePass = { examined: 0, costed: 0, withoutUsage: 0, withoutSession: 0 };
  const horizon = new Date(deps.clock.now().getTime() - RUNTIME_USAGE_HORIZON_MS);
  await db.query('DELETE FROM run_runtime_usage_pending WHERE finished_at < $1', [horizon]);
  const { rows } = await db.query<Candidate>(
    `SELECT ${runColumnsOf('r')}, coalesce(r.claimed_at, r.started_at, r.dispatched_at, r.created_at) AS window_from
       FROM run_runtime_usage_pending p JOIN workflow_runs r ON r.id = p.run_id
      WHERE p.finished_at >= $1 AND r.status = ANY($2::text[]) AND r.finished_at IS NOT NULL
      ORDER BY p.finished_at, p.run_id LIMIT $3`,
    [horizon, terminalRunStatuses, batch],
  );
  const startedAt = deps.clock.now().getTime();
  for (const run of rows) {
    if (deps.clock.now().getTime() - startedAt > RUNTIME_USAGE_PASS_MS) break;
    const from = run.window_from.getTime();
    const to = run.finished_at!.getTime();
    let total: SessionUsage | undefined;
    const keys = sessionKeysOf(run);
    try {
      for (const key of keys) {
        const found = await sessionUsage(deps, key, from, to);
        if (!found) continue;
        total = {
          usage: found.usage ? addUsage(total?.usage, found.usage) : total?.usage,
          messages: (total?.messages ?? 0) + found.messages,
          lastAt: found.lastAt === null ? (total?.lastAt ?? null) : Math.max(total?.lastAt ?? found.lastAt, found.lastAt),
        };
        // two keys of one run naming the same session would count its messages twice: the first found is the run's
        if (found.messages > 0) break;
      }
    } catch (err) {
      if (!(err instanceof RuntimeCallError)) throw err;
      pass.unavailable = err.message;
      break;
    }
    pass.examined++;
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const { rows: locked } = await tx.query<WorkflowRun>(`SELECT ${runColumns} FROM workflow_runs r WHERE r.id = $1 FOR UPDATE`, [
        run.id,
      ]);
      const current = locked[0];
      if (!current) return;
      const stillWithoutUsage =
        current.cost_estimate === null && current.input_tokens === null && current.output_tokens === null && current.cost_source === null;
      if (!stillWithoutUsage) return noteChecked(tx, run.id, 'reported', keys[0] ?? null, 0, now);
      if (!total) {
        pass.withoutSession++;
        return noteChecked(tx, run.id, 'no_session', keys[0] ?? null, 0, now);
      }
      if (!total.usage) {
        pass.withoutUsage++;
        return noteChecked(tx, run.id, 'no_usage', keys[0] ?? null, 0, now);
      }
      const at = new Date(total.lastAt ?? to);
      const columns = (await usageColumns(deps, tx, current, usageReportOf(total.usage, at)))!;
      if (total.usage.cost !== null) columns.cost_source = 'runtime';
      await changeRun(deps, tx, current, { actor: SYSTEM_ACTOR, action: 'usage_from_runtime', set: columns });
      pass.costed++;
      await noteChecked(tx, run.id, 'costed', keys[0] ?? null, total.messages, now);
    });
  }
  return pass;
}
