import type { Deps, TickSummary } from '../ports';
import { DISPATCH_LANES, inLanes, MAX_BATCHES, type TickContext } from './dispatcher-batches';
import { recoveryRules } from './recovery-rules';
import { updateRunBatch, type ChangedRun } from './run-audit';
import { stuckConditionSql } from './run-queries';
import { terminalRunStatuses, transitionOf, type RunTrigger } from './run-status';
import { leaveSessionsSql, releaseTasksOfEndedRuns } from './run-store';

/** One recovery rule of spec 03 as data: which runs (SQL over r and its route w), what they become, how it is audited. */
interface RecoveryRule {
  where: string;
  /** The status move of spec 03's table it makes, if any (the `status` assignment). */
  transition?: RunTrigger;
  set: Record<string, string>;
  action: string;
  returnsToQueue?: boolean;
}

/** The rule moves its runs to a terminal status: their tasks' pointers and claims are then released. */
const endsRuns = (rule: RecoveryRule) => rule.transition !== undefined && terminalRunStatuses.includes(transitionOf(rule.transition).to);

function recoveryAssignments(rule: RecoveryRule): Record<string, string> {
  return {
    ...(rule.returnsToQueue ? leaveSessionsSql : {}),
    ...(rule.transition ? { status: `'${transitionOf(rule.transition).to}'` } : {}),
    ...rule.set,
  };
}

const recoveryRuleSql: Record<keyof TickSummary['recovered'], RecoveryRule> = {
  redispatched: {
    where: `${stuckConditionSql.unclaimed} AND r.dispatch_attempts < ${recoveryRules.maxDispatchAttempts}`,
    set: { dispatched_at: '$1', dispatch_attempts: 'r.dispatch_attempts + 1' },
    action: 'redispatched',
  },
  failed: {
    where: `${stuckConditionSql.unclaimed} AND r.dispatch_attempts >= ${recoveryRules.maxDispatchAttempts}`,
    transition: 'fail_unclaimed',
    set: {
      finished_at: '$1',
      last_error: `'not claimed within ${recoveryRules.unclaimedAfterMs / 60_000} minutes after ' || r.dispatch_attempts || ' dispatch attempts'`,
    },
    action: 'status_changed',
  },
  released: {
    where: stuckConditionSql.silent_claim,
    transition: 'release_silent_claim',
    set: {
      dispatched_at: '$1',
      claimed_at: 'NULL',
      heartbeat_at: 'NULL',
      retry_count: 'r.retry_count + 1',
      last_error: `'released: no heartbeat within ${recoveryRules.silentClaimAfterMs / 60_000} minutes of the claim by ' || coalesce(r.claim_session_id, 'an unknown session')`,
    },
    action: 'released',
    returnsToQueue: true,
  },
  timedOut: {
    where: stuckConditionSql.timed_out_running,
    transition: 'time_out',
    set: {
      finished_at: '$1',
      gateway_session_active: 'false',
      last_error: `'running longer than the routing timeout of ' || coalesce((SELECT w2.timeout_minutes FROM workflow_agent_routing w2 WHERE w2.workflow_type = r.workflow_type), ${recoveryRules.defaultTimeoutMinutes}) || ' minutes'`,
    },
    action: 'status_changed',
  },
};

/** Phase 1: every recovery rule in turn, batch by batch; runs that end up dispatched are to be woken. */
export async function recoverStaleRuns(
  deps: Deps,
  ctx: TickContext,
): Promise<{ recovered: TickSummary['recovered']; toWake: ChangedRun[] }> {
  const recovered = { redispatched: 0, failed: 0, released: 0, timedOut: 0 };
  const toWake: ChangedRun[] = [];
  for (const name of Object.keys(recoveryRuleSql) as Array<keyof typeof recoveryRuleSql>) {
    const rule = recoveryRuleSql[name];
    // batches of a rule that ends no run touch only their own runs (SKIP LOCKED keeps them apart):
    // two at a time; one that ends runs also locks and releases their tasks (in id order, so never
    // in a cycle), where two batches would mostly wait for each other: one at a time
    let batches = 0;
    let drained = false;
    const batch = async () => {
      batches++;
      const changed = await recoverBatch(deps, ctx, rule);
      recovered[name] += changed.length;
      toWake.push(...changed.filter((run) => run.status === 'dispatched'));
      if (changed.length < ctx.batchSize) drained = true;
    };
    // the first batch alone: most ticks find little or nothing to recover
    await batch();
    if (!drained) await inLanes(endsRuns(rule) ? 1 : DISPATCH_LANES, () => !drained && batches < MAX_BATCHES, batch);
  }
  return { recovered, toWake };
}

async function recoverBatch(deps: Deps, ctx: TickContext, rule: RecoveryRule): Promise<ChangedRun[]> {
  return ctx.db.transaction(async (tx) => {
    const at = deps.clock.now();
    const { rows: picked } = await tx.query<{ id: string }>(
      `SELECT r.id FROM workflow_runs r LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
        WHERE ${rule.where} ORDER BY r.created_at, r.id LIMIT ${ctx.batchSize} FOR UPDATE OF r SKIP LOCKED`,
      [at],
    );
    const after = await updateRunBatch(deps, tx, at, {
      assignments: recoveryAssignments(rule),
      ids: picked.map((r) => r.id),
      actor: ctx.actor,
      action: rule.action,
    });
    await releaseTasksOfEndedRuns(deps, tx, after);
    return after;
  });
}
