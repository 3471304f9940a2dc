import * as z from 'zod';

export const budgetScopes = ['agent', 'department', 'project', 'fleet'] as const;
export const budgetPeriods = ['daily', 'weekly', 'monthly'] as const;
export const budgetActions = ['warn', 'pause_new_runs', 'hard_stop'] as const;
/** What a budget's USD counts of subscription runs: nothing (billed), or their shadow list cost (list). */
export const budgetBases = ['billed', 'list'] as const;
export type BudgetBasis = (typeof budgetBases)[number];
export type BudgetScope = (typeof budgetScopes)[number];
export type BudgetPeriod = (typeof budgetPeriods)[number];
export type BudgetAction = (typeof budgetActions)[number];

const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { message: `must be one of ${values.join(', ')}` });

/**
 * What one run is expected to spend: its route's expected_cost_usd and expected_tokens, which it
 * reserves in every budget of its scope while it is live; null: nothing.
 */
export interface Expectation {
  usd: number | null;
  tokens: number | null;
  /** Its agent bills by subscription: its USD expectation takes no room in a budget of basis billed. */
  subscription?: boolean;
}

/** A stored budget row (spend and status are derived, never stored). */
export const budgetRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(budgetScopes),
  scope_id: z.string().nullable(),
  period: z.enum(budgetPeriods),
  cap_usd: z.number().nullable(),
  cap_tokens: z.number().nullable(),
  action_on_exceed: z.enum(budgetActions),
  active: z.boolean(),
  basis: z.enum(budgetBases),
  created_at: z.date(),
  updated_at: z.date(),
});
export type BudgetRow = z.infer<typeof budgetRowSchema>;

export const budgetColumns =
  'id, name, scope, scope_id, period, cap_usd, cap_tokens, action_on_exceed, active, basis, created_at, updated_at';

const name = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');
const capUsd = z.number({ message: 'must be a number' }).finite().positive('must be positive');
const capTokens = z
  .number({ message: 'must be a number' })
  .int('must be a whole number')
  .positive('must be positive')
  .max(Number.MAX_SAFE_INTEGER);
const scopeId = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');

const exactlyOneCap = (b: { cap_usd?: number | null; cap_tokens?: number | null }, ctx: z.RefinementCtx) => {
  const set = [b.cap_usd, b.cap_tokens].filter((c) => c !== undefined && c !== null).length;
  if (set !== 1) ctx.addIssue({ code: 'custom', path: ['cap_usd'], message: 'exactly one of cap_usd and cap_tokens must be set' });
};

/**
 * POST /api/budgets. Scope fleet takes any scope_id and stores null; the other scopes require one.
 */
export const createBudgetSchema = z
  .strictObject({
    name,
    scope: oneOf(budgetScopes),
    scope_id: z.union([scopeId, z.null()]).optional(),
    period: oneOf(budgetPeriods),
    cap_usd: capUsd.nullable().optional(),
    cap_tokens: capTokens.nullable().optional(),
    action_on_exceed: oneOf(budgetActions),
    active: z.boolean().default(true),
    basis: oneOf(budgetBases).default('billed'),
  })
  .superRefine(exactlyOneCap)
  .superRefine((b, ctx) => {
    if (b.scope !== 'fleet' && (b.scope_id === undefined || b.scope_id === null)) {
      ctx.addIssue({ code: 'custom', path: ['scope_id'], message: `required for scope ${b.scope}` });
    }
  })
  .transform((b) => ({
    ...b,
    // a project id is compared with uuids as PostgreSQL prints them: lower case
    scope_id: b.scope === 'fleet' ? null : b.scope === 'project' ? (b.scope_id?.toLowerCase() ?? null) : (b.scope_id ?? null),
    cap_usd: b.cap_usd ?? null,
    cap_tokens: b.cap_tokens ?? null,
  }));
export type CreateBudgetInput = z.output<typeof createBudgetSchema>;

/**
 * PATCH /api/budgets/:id: at least one field; at most one cap per call (the sibling is cleared);
 * a cap cannot be set to null without a replacement.
 */
export const updateBudgetSchema = z
  .strictObject({
    name,
    action_on_exceed: oneOf(budgetActions),
    active: z.boolean(),
    basis: oneOf(budgetBases),
    cap_usd: capUsd,
    cap_tokens: capTokens,
  })
  .partial()
  .superRefine((patch, ctx) => {
    if (Object.keys(patch).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'name at least one of name, action_on_exceed, active, basis, cap_usd, cap_tokens',
      });
    if (patch.cap_usd !== undefined && patch.cap_tokens !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['cap_tokens'], message: 'at most one cap per call: send cap_usd or cap_tokens' });
    }
  });
export type UpdateBudgetInput = z.output<typeof updateBudgetSchema>;
