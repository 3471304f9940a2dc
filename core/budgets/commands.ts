import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { answeringValidation, degradable } from '../costs/availability';
import { BudgetNotFoundError, ConflictError, DuplicateActiveBudgetError, ValidationError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { parseInput, uuidSchema } from '../validation';
import {
  budgetColumns,
  createBudgetSchema,
  updateBudgetSchema,
  type BudgetRow,
  type CreateBudgetInput,
  type UpdateBudgetInput,
} from './budget';
import { budgetViewSchema, evaluateBudgets, viewOf } from './evaluation';
import { findBudget } from './queries';

/** A budget as POST and PATCH /api/budgets answer it. */
export const budgetAnswerSchema = z.object({ available: z.literal(true), budget: budgetViewSchema, timestamp: z.string() });
export type BudgetAnswer = z.infer<typeof budgetAnswerSchema>;

function budgetEvent(action: string, budgetId: string) {
  return { name: 'budget:changed', payload: { action, budgetId }, channel: 'events' as const };
}

async function activeTwin(
  db: Db,
  b: Pick<BudgetRow, 'scope' | 'scope_id' | 'period'>,
  exceptId: string | null,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM budgets WHERE active AND scope = $1 AND coalesce(scope_id, '') = coalesce($2, '') AND period = $3
        AND ($4::uuid IS NULL OR id <> $4) LIMIT 1`,
    [b.scope, b.scope_id, b.period, exceptId],
  );
  return rows[0]?.id;
}

/** A project or department scope must name one that exists (an agent may be known only to the runtime). */
async function assertScopeExists(db: Db, scope: string, scopeId: string | null): Promise<void> {
  const missing = (message: string) => new ValidationError(message, [{ path: 'scope_id', message }]);
  if (scope === 'project') {
    if (!uuidSchema.safeParse(scopeId).success) throw missing('must be the id (UUID) of a project');
    const { rowCount } = await db.query('SELECT 1 FROM projects WHERE id = $1', [scopeId]);
    if (!rowCount) throw missing(`no project ${scopeId}`);
  } else if (scope === 'department') {
    const { rowCount } = await db.query('SELECT 1 FROM departments WHERE id = $1', [scopeId]);
    if (!rowCount) throw missing(`no department ${scopeId}`);
  }
}

/**
 * POST /api/budgets:
 * 1. validate (exactly one cap, scope rules; fleet's scope_id stored as null);
 * 2. refuse a second active budget of the same scope, scope_id and period (409);
 * 3. insert, audit `created`, publish budget:changed; answer with the derived fields.
 */
export async function createBudget(deps: Deps, body: unknown, actor = OPERATOR_ACTOR): Promise<BudgetAnswer> {
  return answeringValidation(async () => {
    const input = parseInput(createBudgetSchema, body ?? {}, 'budget');
    return degradable(deps.storage, (db) => insertBudget(deps, db, input, actor));
  });
}

async function insertBudget(deps: Deps, db: Db, input: CreateBudgetInput, actor: string): Promise<BudgetAnswer> {
  const id = deps.ids.uuid();
  const now = deps.clock.now();
  try {
    const created = await db.transaction(async (tx) => {
      await assertScopeExists(tx, input.scope, input.scope_id);
      if (input.active) {
        const twin = await activeTwin(tx, input, null);
        if (twin) throw new DuplicateActiveBudgetError(twin);
      }
      const { rows } = await tx.query<BudgetRow>(
        `INSERT INTO budgets (id, name, scope, scope_id, period, cap_usd, cap_tokens, action_on_exceed, active, basis, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $10, $10) RETURNING ${budgetColumns}`,
        [
          id,
          input.name,
          input.scope,
          input.scope_id,
          input.period,
          input.cap_usd,
          input.cap_tokens,
          input.action_on_exceed,
          input.active,
          now,
          input.basis,
        ],
      );
      await recordChange(deps, tx, {
        actor,
        action: 'created',
        entityType: 'budget',
        entityId: id,
        newValue: rows[0],
        event: budgetEvent('created', id),
      });
      return rows[0]!;
    });
    const [evaluated] = await evaluateBudgets(db, [created], now);
    return { available: true, budget: viewOf(evaluated!), timestamp: now.toISOString() };
  } catch (err) {
    // two creates racing past the check: the partial unique index decides
    if (err instanceof ConflictError) {
      const twin = await activeTwin(db, input, null);
      if (twin) throw new DuplicateActiveBudgetError(twin);
    }
    throw err;
  }
}

/**
 * PATCH /api/budgets/:id: name, action_on_exceed, active, or one cap (the sibling cap is cleared).
 * Re-activating into an occupied (scope, scope_id, period) is the same 409 as a duplicate create.
 */
export async function updateBudget(deps: Deps, rawId: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<BudgetAnswer> {
  if (!uuidSchema.safeParse(rawId).success) throw new BudgetNotFoundError();
  const id = rawId as string;
  return answeringValidation(async () => {
    const patch = parseInput(updateBudgetSchema, body ?? {}, 'budget update');
    return degradable(deps.storage, (db) => patchBudget(deps, db, id, patch, actor));
  });
}

async function patchBudget(deps: Deps, db: Db, id: string, patch: UpdateBudgetInput, actor: string): Promise<BudgetAnswer> {
  const now = deps.clock.now();
  const fields: Record<string, unknown> = { ...patch };
  if (patch.cap_usd !== undefined) fields.cap_tokens = null;
  if (patch.cap_tokens !== undefined) fields.cap_usd = null;
  try {
    const updated = await db.transaction(async (tx) => {
      const before = await findBudget(tx, id, true);
      if (!before) throw new BudgetNotFoundError();
      if (patch.active === true && !before.active) {
        const twin = await activeTwin(tx, before, id);
        if (twin) throw new DuplicateActiveBudgetError(twin);
      }
      const after = await patchRow<BudgetRow>(tx, { table: 'budgets', key: id, set: fields, at: now, returning: budgetColumns });
      await recordChange(deps, tx, {
        actor,
        action: 'updated',
        entityType: 'budget',
        entityId: id,
        oldValue: before,
        newValue: after,
        event: budgetEvent('updated', id),
      });
      return after!;
    });
    const [evaluated] = await evaluateBudgets(db, [updated], now);
    return { available: true, budget: viewOf(evaluated!), timestamp: now.toISOString() };
  } catch (err) {
    if (err instanceof ConflictError) {
      const current = await findBudget(db, id);
      const twin = current && (await activeTwin(db, current, id));
      if (twin) throw new DuplicateActiveBudgetError(twin);
    }
    throw err;
  }
}
