import * as z from 'zod';
import { recordChange } from '../audit/record-change';
import { probeHeadroom, type BudgetBlock } from '../budgets/headroom';
import { expectationOfDispatch, scopeChainOfDispatch, scopeChainOfRun, type ScopeChain } from '../budgets/scope-chain';
import {
  ActionFailedError,
  ActionsUnavailableError,
  BudgetBlockedError,
  DomainError,
  GovernanceRejectedError,
  InvalidActionError,
  StaleRetryError,
  StorageUnavailableError,
} from '../errors';
import type { Db, Deps } from '../ports';
import { evaluateGovernanceAction, governancePolicy, resolveGovernanceActor, type GovernanceVerdict } from '../workflows/governance';
import { dispatchClassKinds, governanceActionOf, rollbackHintFor } from './catalog';
import { checkEnvelope, type ActionEnvelope } from './envelope';
import { backingOperations, type Performed } from './perform';
import { actionUpdate, findReceipt, insertReceipt, receiptSchema, settleReceipt, type Receipt } from './receipts';

/** 503 before any execution: without durable receipts nothing executes. */
function refused(err: unknown): ActionsUnavailableError {
  if (err instanceof StorageUnavailableError) return new ActionsUnavailableError('no_database');
  // 42P01: the receipts table is missing
  return new ActionsUnavailableError((err as { code?: string })?.code === '42P01' ? 'receipts_unavailable' : 'query_failed');
}

/** POST /api/actions/execute: the receipt; `duplicate: true` when the action id was executed before. */
export const actionAnswerSchema = z.object({ receipt: receiptSchema, duplicate: z.literal(true).optional() });
export type ActionAnswer = z.infer<typeof actionAnswerSchema>;

/** The replay rows of the receipt lifecycle: same intent is a duplicate that runs nothing; anything else is stale. */
function replay(existing: Receipt, e: ActionEnvelope): ActionAnswer {
  if (existing.params_hash !== e.paramsHash || existing.kind !== e.kind || existing.target_id !== e.targetId) throw new StaleRetryError();
  return { receipt: existing, duplicate: true };
}

function governanceDetail(verdict: GovernanceVerdict) {
  return {
    allowed: verdict.allowed,
    action: verdict.policy.action,
    actor: { name: verdict.actor.name, role: verdict.actor.role, source: verdict.actor.source },
    ...(verdict.reason ? { reason: verdict.reason } : {}),
  };
}

/** Governance for the envelope's actor; a helper that fails denies (fails closed). */
async function governanceOf(db: Db, e: ActionEnvelope): Promise<GovernanceVerdict> {
  const action = governanceActionOf(e.kind, e.input);
  try {
    return evaluateGovernanceAction(action, await resolveGovernanceActor(db, e.actor));
  } catch (err) {
    return {
      allowed: false,
      actor: { name: e.actor, role: 'unknown', capabilities: [], source: 'unknown' },
      policy: governancePolicy(action),
      reason: `governance could not be evaluated (${(err as Error).message}); refused`,
    };
  }
}

async function chainOf(db: Db, e: ActionEnvelope): Promise<ScopeChain | undefined> {
  return e.kind === 'run.dispatch' ? scopeChainOfDispatch(db, e.targetId, String(e.input.template)) : scopeChainOfRun(db, e.targetId);
}

/** The snapshot endpoint's error body for the same failure (as handlers/middleware shapes a domain error). */
function snapshotEndpointBody(err: unknown): Record<string, unknown> {
  if (err instanceof DomainError) return err.body();
  return { error: 'internal server error', code: 'internal' };
}

async function mirror(deps: Deps, tx: Db, receipt: Receipt): Promise<void> {
  const taskScoped = receipt.kind === 'task.assign' || receipt.kind === 'task.update';
  await recordChange(deps, tx, {
    actor: receipt.actor,
    action: `action.${receipt.kind}`,
    entityType: 'action_receipt',
    entityId: receipt.action_id,
    ...(taskScoped && receipt.outcome === 'executed' ? { taskId: receipt.target_id } : {}),
    newValue: receipt,
    event: actionUpdate(receipt),
  });
}

/**
 * POST /api/actions/execute, in spec 02's order:
 * 1. envelope validation (kind, target format, params schema): 400 invalid_action;
 * 2. durable receipts available, else 503 with nothing executed;
 * 3. an existing receipt answers the replay (duplicate, or 409 stale_retry), running nothing;
 * 4. governance (fails closed): a refusal is a rejected_governance receipt and 403;
 * 5. dispatch-class kinds: the budget headroom probe (fails open): 422 budget_blocked, no receipt;
 * 6. the latch: the receipt is inserted with a null outcome in its own commit, so of racing
 *    executes of one actionId exactly one goes on (the primary key decides);
 * 7. the side effect, the receipt's outcome and the `action.<kind>` audit mirror commit together.
 *    A crash between 6 and 7 leaves the null outcome, which replays report and never re-run.
 */
export async function executeAction(deps: Deps, body: unknown): Promise<ActionAnswer> {
  const check = checkEnvelope(body);
  if (!check.ok) throw new InvalidActionError(check.details);
  const e = check.envelope;
  if (deps.storage.mode !== 'database') throw new ActionsUnavailableError('no_database');
  const db = deps.storage.db;
  const label = deps.storage.label;

  let existing: Receipt | undefined;
  try {
    existing = await findReceipt(db, e.actionId);
  } catch (err) {
    throw refused(err);
  }
  if (existing) return replay(existing, e);

  const base = { action_id: e.actionId, kind: e.kind, target_id: e.targetId, params_hash: e.paramsHash, actor: e.actor };
  const verdict = await governanceOf(db, e);
  const detail: Record<string, unknown> = { governance: governanceDetail(verdict), ...(e.confirm ? { confirm: e.confirm } : {}) };

  if (!verdict.allowed) {
    let receipt: Receipt | undefined;
    try {
      receipt = await db.transaction(async (tx) => {
        const inserted = await insertReceipt(deps, tx, { ...base, outcome: 'rejected_governance', rollback_hint: null, detail });
        if (inserted) await mirror(deps, tx, inserted);
        return inserted;
      });
    } catch (err) {
      throw refused(err);
    }
    if (!receipt) return replay((await findReceipt(db, e.actionId))!, e);
    throw new GovernanceRejectedError(verdict.reason, { receipt });
  }

  if (dispatchClassKinds.has(e.kind)) {
    let block: BudgetBlock | undefined;
    try {
      const chain = await chainOf(db, e);
      const expected = await expectationOfDispatch(
        db,
        e.kind as 'run.dispatch' | 'run.redispatch',
        e.targetId,
        String(e.input.template ?? ''),
      );
      block = chain && (await probeHeadroom(db, deps.events, chain, deps.clock.now(), expected));
    } catch (err) {
      detail.budget_probe = { failed: true, error: (err as Error).message };
    }
    if (block) throw new BudgetBlockedError(block.action, block.budgets);
  }

  let latched: Receipt | undefined;
  try {
    latched = await db.transaction((tx) => insertReceipt(deps, tx, { ...base, outcome: null, rollback_hint: null, detail }));
  } catch (err) {
    throw refused(err);
  }
  if (!latched) return replay((await findReceipt(db, e.actionId))!, e);

  const backing = backingOperations[e.kind];
  let failure: unknown;
  let performed: Performed | undefined;
  const settle = async (tx: Db) => {
    const finalDetail = { ...detail };
    if (performed) finalDetail.result = performed.result;
    if (failure !== undefined) {
      finalDetail.error = failure instanceof DomainError ? failure.message : 'internal error in the backing operation';
      if (e.kind === 'snapshot.create') finalDetail.snapshot_body = snapshotEndpointBody(failure);
    }
    const hint = performed ? rollbackHintFor(e.kind, { targetId: e.targetId, ...performed.hint }) : null;
    const settled = await settleReceipt(tx, e.actionId, performed ? 'executed' : 'failed', hint, finalDetail, deps.clock.now());
    if (settled) await mirror(deps, tx, settled);
    return settled;
  };

  let receipt: Receipt | undefined;
  try {
    if (backing.inTransaction) {
      receipt = await db.transaction(async (tx) => {
        const txDeps: Deps = { ...deps, storage: { mode: 'database', db: tx, label } };
        try {
          performed = await tx.transaction((inner) => backing.run(txDeps, e, inner));
        } catch (err) {
          if (err instanceof StorageUnavailableError) throw err;
          failure = err;
        }
        return settle(tx);
      });
    } else {
      try {
        performed = await backing.run(deps, e, db);
      } catch (err) {
        failure = err;
      }
      receipt = await db.transaction(settle);
    }
  } catch (err) {
    // the outcome could not be recorded: the receipt keeps its null outcome ("executing, fate unknown")
    throw refused(err);
  }
  if (!receipt) return replay((await findReceipt(db, e.actionId))!, e);
  if (receipt.outcome === 'executed') return { receipt };
  const message = String(receipt.detail.error);
  const notFound = (failure instanceof DomainError && failure.code === 'not_found') || /not found/i.test(message);
  throw new ActionFailedError(message, receipt, notFound);
}
