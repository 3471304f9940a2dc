import * as z from 'zod';
import { ConflictError } from '../errors';
import type { Db, Deps } from '../ports';
import { SECRET_WORDS_SQL } from '../secrets/redact';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { transitionOf } from './run-status';
import { assertTransition, changeRun, findRun, runEvent, withRun } from './run-store';
import { claimRunSchema, runOfStateJson, type WorkflowRun, workflowRunSchema } from './run';

/*
 * An agent's claim of a dispatched run: one statement decides it (migration 1010's function), a
 * retried claim by the same session is answered as settled.
 */

export const claimResultSchema = z.object({
  claimed: z.literal(true),
  /** True when the same session claimed this run before (a retried claim). */
  already: z.boolean(),
  run: workflowRunSchema,
});
export type ClaimResult = z.infer<typeof claimResultSchema>;

/**
 * A claim that the run's state already answers without a write: the same session's retry
 * (answered with the run), or a run some other session holds (409). Undefined: the claim needs
 * the locked path.
 */
function settledClaim(run: Pick<WorkflowRun, 'id' | 'status' | 'claim_session_id'>, sessionId: string): 'retry' | undefined {
  if (run.status === 'claimed' && run.claim_session_id === sessionId) return 'retry';
  if (run.status !== 'dispatched' && run.claim_session_id) {
    throw new ConflictError(`workflow run ${run.id} is already ${run.status} by session ${run.claim_session_id}`, {
      status: run.status,
      reason: 'already_claimed',
    });
  }
  return undefined;
}

/** What a claim's statement reads, and the run's JSON when it claimed it (claim_dispatched_run, migration 1010). */
type ClaimRead = Pick<WorkflowRun, 'id' | 'status' | 'claim_session_id'> & { claimed: Record<string, unknown> | null };

/** A run claim in one statement: a plain read of what decides it, and the claim with its traces only when the run is claimable. */
const claimable = `'{${transitionOf('claim').from.join(',')}}'::text[]`;
const claimRunSql = `SELECT id, status, claim_session_id,
       CASE WHEN status = ANY (${claimable})
            THEN claim_dispatched_run($1, $2, $3, $4, $5, $6, ${claimable}, '${transitionOf('claim').to}', $7, $8, $9, '${SECRET_WORDS_SQL}') END AS claimed
  FROM workflow_runs WHERE id = $1`;

/**
 * POST /api/workflow-runs/:id/claim. Exactly one of concurrent claimers moves the run from
 * dispatched to claimed; the others get 409. The claim ties the run to the session key
 * (claim_session_id, and gateway_session_id until a child registers). A dispatched run is claimed
 * in one round trip, as a free task is: one statement reads the run and, when it is claimable, claims it
 * and writes its traces (claim_dispatched_run, migration 1010). A run held by another session is
 * 409 from the same statement's answer; a retry of the same session is answered with the run. A
 * row that moved under the statement, secret words in its payload, summary or metadata, or an
 * event bus that is not the outbox, is decided under the row lock.
 */
export async function claimRun(deps: Deps, rawId: unknown, body: unknown): Promise<ClaimResult> {
  const input = parseInput(claimRunSchema, body ?? {}, 'claim');
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const claim = transitionOf('claim');
  // runEvent's channel, name and shape; the statement fills in what only the row knows (workflowType, taskId)
  const event = deps.events.inline?.(runEvent('claimed', { id, status: claim.to, workflow_type: '', task_id: null }));
  if (event) {
    const actor = input.actor ?? input.agent_id;
    const { rows } = await db.query<ClaimRead>(claimRunSql, [
      id,
      input.session_id,
      input.agent_id,
      actor,
      deps.clock.now().toISOString(),
      deps.ids.uuid(),
      event.channel,
      event.name,
      event.payload,
    ]);
    const read = rows[0];
    if (read?.claimed) {
      event.committed(db);
      return { claimed: true, already: false, run: runOfStateJson(read.claimed) };
    }
    if (read && settledClaim(read, input.session_id) === 'retry') {
      const run = await findRun(db, read.id);
      if (run && settledClaim(run, input.session_id) === 'retry') return { claimed: true, already: true, run };
    }
  }
  return withRun(deps, id, (tx, run) => claimLockedRun(deps, tx, run, input));
}

/** The claim decided under the run's row lock. */
async function claimLockedRun(deps: Deps, tx: Db, run: WorkflowRun, input: z.infer<typeof claimRunSchema>): Promise<ClaimResult> {
  if (settledClaim(run, input.session_id) === 'retry') return { claimed: true, already: true, run };
  assertTransition(run, 'claim');
  const now = deps.clock.now();
  const after = await changeRun(deps, tx, run, {
    actor: input.actor ?? input.agent_id,
    action: 'claimed',
    set: {
      status: transitionOf('claim').to,
      claim_session_id: input.session_id,
      gateway_session_id: input.session_id,
      gateway_session_active: true,
      owner_agent_id: run.owner_agent_id ?? input.agent_id,
      claimed_at: now,
      heartbeat_at: now,
    },
  });
  return { claimed: true, already: false, run: after };
}
