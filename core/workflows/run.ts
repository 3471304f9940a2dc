import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { billingModes } from '../costs/pricing';
import { rowOfStateJson } from '../state-json';
import { jsonObjectSchema, uuidSchema, withAliases } from '../validation';
import { sessionKeySchema } from '../runtime/ids';
import { templateNameSchema } from './template';

/** Every column of workflow_runs, as the API returns a run. */
export const runColumns = [
  'id',
  'workflow_type',
  'status',
  'task_id',
  'current_step',
  'owner_agent_id',
  'target_agent_id',
  'input_payload',
  'output_summary',
  'dispatch_attempts',
  'gateway_session_id',
  'gateway_session_active',
  'claim_session_id',
  'session_history',
  'retry_count',
  'dispatched_at',
  'claimed_at',
  'heartbeat_at',
  'started_at',
  'finished_at',
  'cost_estimate',
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'model_id',
  'currency',
  'reported_at',
  'last_error',
  'created_by',
  'metadata',
  'created_at',
  'updated_at',
  'error_class',
  'cache_write_tokens',
  'cost_source',
  'billing',
].join(', ');

/** runColumns qualified by a table alias (`r.id, r.workflow_type, …`), for queries that join the runs. */
export function runColumnsOf(alias: string): string {
  return runColumns
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

const nullableDate = z.date().nullable();
const nullableCount = z.number().int().nullable();

/** A workflow run as the API answers it (spec 03 workflow_runs); the OpenAPI document's run schema. */
export const workflowRunSchema = z.object({
  id: z.string(),
  workflow_type: z.string(),
  /** Shown verbatim: values outside the known set are tolerated (spec 03). */
  status: z.string(),
  task_id: z.string().nullable(),
  current_step: z.number().int(),
  owner_agent_id: z.string().nullable(),
  target_agent_id: z.string().nullable(),
  input_payload: z.record(z.string(), z.unknown()),
  output_summary: z.record(z.string(), z.unknown()).nullable(),
  dispatch_attempts: z.number().int(),
  gateway_session_id: z.string().nullable(),
  gateway_session_active: z.boolean(),
  claim_session_id: z.string().nullable(),
  session_history: z.array(z.string()),
  retry_count: z.number().int(),
  dispatched_at: nullableDate,
  claimed_at: nullableDate,
  heartbeat_at: nullableDate,
  started_at: nullableDate,
  finished_at: nullableDate,
  cost_estimate: z.number().nullable(),
  input_tokens: nullableCount,
  output_tokens: nullableCount,
  cached_tokens: nullableCount,
  model_id: z.string().nullable(),
  currency: z.string().nullable(),
  reported_at: nullableDate,
  last_error: z.string().nullable(),
  created_by: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.date(),
  updated_at: z.date(),
  /** What kind of failure ended (or requeued) the run last; null before any. */
  error_class: z.string().nullable(),
  /** Input tokens written to the provider's prompt cache (part of input_tokens), priced apart. */
  cache_write_tokens: nullableCount,
  /**
   * Who set cost_estimate: the agent (reported) or the price table (table); runtime: the
   * runtime's own per-message usage of the run's session, for an agent that reported none
   * (docs/costs.md); null: neither, or before this was kept.
   */
  cost_source: z.enum(['reported', 'table', 'runtime']).nullable(),
  /** The billing mode: subscription runs keep cost_estimate as a shadow (list) cost that billed totals leave out. */
  billing: z.enum(billingModes).nullable(),
});
export type WorkflowRun = z.infer<typeof workflowRunSchema>;

/** The run's timestamp columns (Dates in the schema): ISO text in the run's JSON. */
export const runTimestampColumns: ReadonlySet<string> = new Set(
  Object.entries(workflowRunSchema.shape)
    .filter(([, schema]) => (schema instanceof z.ZodNullable ? schema.unwrap() : schema) instanceof z.ZodDate)
    .map(([column]) => column),
);

const runColumnNames = runColumns.split(', ');

/** The run of its JSON as built in SQL (run_state_json, migration 1010), as the driver answers the row. */
export function runOfStateJson(json: Record<string, unknown>): WorkflowRun {
  return rowOfStateJson(json, runColumnNames, runTimestampColumns) as WorkflowRun;
}

/** The run listings' envelope (GET /api/workflow-runs, /pending, /active). */
export const runListSchema = z.object({ runs: z.array(workflowRunSchema), total: z.number().int(), truncated: z.boolean() });

/** Who acts: the `actor` field of a run operation's body, default the single operator (spec 01). */
const actorName = z.string().trim().min(1, 'must not be empty').max(200);
export const actorSchema = actorName.default(OPERATOR_ACTOR);
/** For agent-side operations, whose actor defaults to the agent or session acting, not the operator. */
export const agentActorSchema = actorName.optional();
/** Session keys are validated as the runtime adapter validates them (they are passed to its CLI). */
export { sessionKeySchema };
export const agentIdSchema = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');
export const idempotencyKeySchema = z
  .string({ message: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(255, 'at most 255 characters')
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
const reason = z.string().trim().max(2000, 'at most 2000 characters');
const tokens = z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER);

/** Usage reporting fields (spec 03 usage columns), accepted by PATCH and complete. */
export const usageReportShape = {
  input_tokens: tokens.optional(),
  output_tokens: tokens.optional(),
  cached_tokens: tokens.optional(),
  cache_write_tokens: tokens.optional(),
  model_id: z.string().trim().min(1).max(200).optional(),
  cost_estimate: z.number().finite().min(0, 'must not be negative').optional(),
  currency: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
    .transform((c) => c.toUpperCase())
    .optional(),
  reported_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional(),
};
export const usageFields = Object.keys(usageReportShape) as Array<keyof typeof usageReportShape>;

type CacheCounts = { input_tokens?: number | null; cached_tokens?: number | null; cache_write_tokens?: number | null };

/**
 * Cache reads (cached_tokens) and cache writes (cache_write_tokens) are parts of input_tokens: what
 * is wrong when they exceed it, for a body and for a body merged over what a run stores. Without an
 * input count there is nothing to hold them to.
 */
export function cacheOverInput(v: CacheCounts): Array<{ path: 'cached_tokens' | 'cache_write_tokens'; message: string; detail: string }> {
  const input = v.input_tokens;
  if (input === null || input === undefined) return [];
  const cached = v.cached_tokens ?? 0;
  const written = v.cache_write_tokens;
  const over: ReturnType<typeof cacheOverInput> = [];
  if (cached > input)
    over.push({ path: 'cached_tokens', message: 'cached_tokens must not exceed input_tokens', detail: 'exceeds input_tokens' });
  if (written !== null && written !== undefined && cached + written > input) {
    over.push({
      path: 'cache_write_tokens',
      message: 'cache_write_tokens must not exceed input_tokens less cached_tokens',
      detail: 'exceeds input_tokens less cached_tokens',
    });
  }
  return over;
}

const cacheWithinInput = (v: CacheCounts, ctx: z.RefinementCtx) => {
  for (const issue of cacheOverInput(v)) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
};

/**
 * The original front end names the actor `initiator` and sends a `run_priority`, which is kept in
 * the run's metadata (runs have no priority column; the dispatcher orders by age).
 */
export const createRunSchema = withAliases(
  { initiator: 'actor' },
  z
    .strictObject({
      workflow_type: templateNameSchema,
      task_id: uuidSchema.nullable().default(null),
      input_payload: jsonObjectSchema.default({}),
      owner_agent_id: agentIdSchema.nullable().default(null),
      metadata: jsonObjectSchema.default({}),
      /** Or the Idempotency-Key header: the same key and body within 24 hours answer the first run. */
      idempotency_key: idempotencyKeySchema.optional(),
      run_priority: z
        .union([z.string().trim().min(1).max(50), z.number().int()], { message: 'must be a word or a whole number' })
        .optional(),
      actor: actorSchema,
    })
    .transform(({ run_priority, ...run }) => (run_priority === undefined ? run : { ...run, metadata: { ...run.metadata, run_priority } })),
);
export type CreateRunInput = z.infer<typeof createRunSchema>;

export const claimRunSchema = z.strictObject({ agent_id: agentIdSchema, session_id: sessionKeySchema, actor: agentActorSchema });
/**
 * A heartbeat may carry the run's cumulative usage so far, so budgets see a run's spend while it is
 * alive: the counters, the cost and the model. Cumulative: a value below what the run holds (a late
 * heartbeat) changes nothing.
 */
export const heartbeatRunSchema = z
  .strictObject({
    session_id: sessionKeySchema,
    actor: agentActorSchema,
    input_tokens: usageReportShape.input_tokens,
    output_tokens: usageReportShape.output_tokens,
    cached_tokens: usageReportShape.cached_tokens,
    cache_write_tokens: usageReportShape.cache_write_tokens,
    cost_estimate: usageReportShape.cost_estimate,
    model_id: usageReportShape.model_id,
  })
  .superRefine(cacheWithinInput);
/** Without session_id, the operator's start of a queued run (dispatch it now); with it, the agent's start. */
export const startRunSchema = z.strictObject({ session_id: sessionKeySchema.optional(), actor: agentActorSchema });
export const completeRunSchema = z
  .strictObject({
    session_id: sessionKeySchema,
    output_summary: jsonObjectSchema.default({}),
    actor: agentActorSchema,
    ...usageReportShape,
  })
  .superRefine(cacheWithinInput);
/**
 * What kind of failure a fail reports. quota_exhausted and rate_limited are the
 * provider's, not the run's: the run waits in the queue and dispatch to the agent pauses.
 */
export const runErrorClasses = ['quota_exhausted', 'rate_limited', 'provider_error', 'agent_error'] as const;
export const pausingErrorClasses: readonly string[] = ['quota_exhausted', 'rate_limited'];
export const failRunSchema = z.strictObject({
  session_id: sessionKeySchema,
  error: z.string().trim().min(1, 'say what went wrong').max(5000),
  actor: agentActorSchema,
  error_class: z.enum(runErrorClasses, { message: `must be one of ${runErrorClasses.join(', ')}` }).default('agent_error'),
  retry_after_seconds: z
    .number({ message: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(7 * 86_400, 'must be at most a week (604800)')
    .optional(),
});
export const patchRunSchema = z
  .strictObject({
    gateway_session_id: sessionKeySchema.nullable().optional(),
    gateway_session_active: z.boolean().optional(),
    metadata: jsonObjectSchema.optional(),
    actor: agentActorSchema,
    ...usageReportShape,
  })
  .superRefine(cacheWithinInput)
  .refine((v) => Object.keys(v).some((k) => k !== 'actor'), { message: 'name at least one field to update' });
export const reportStepSchema = z
  .strictObject({
    session_id: sessionKeySchema,
    status: z.string().trim().min(1).max(50).optional(),
    output: z.unknown().optional(),
    error_message: z.string().max(5000).nullable().optional(),
    actor: agentActorSchema,
  })
  .refine((v) => v.status !== undefined || v.output !== undefined || v.error_message !== undefined, {
    message: 'report at least one of status, output, error_message',
  });
export const cancelRunSchema = z.strictObject({ actor: actorSchema, reason: reason.optional() });
export const overrideFailureSchema = z.strictObject({
  next_status: z.enum(['queued', 'completed'], { message: 'must be queued (redispatch) or completed' }),
  reason: reason.optional(),
  actor: actorSchema,
});
export const pauseRunSchema = z.strictObject({ actor: actorSchema, reason: reason.optional() });
export const resumeRunSchema = z.strictObject({ actor: actorSchema, reason: reason.optional() });
export const reassignRunSchema = z.strictObject({ agent_id: agentIdSchema, actor: actorSchema, reason: reason.optional() });
export const escalateRunSchema = z.strictObject({ escalated_to: agentIdSchema, actor: actorSchema, reason: reason.optional() });

const limit = (fallback: number, max: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback);

export const listRunsQuerySchema = z.strictObject({
  workflow_type: z.string().min(1).max(100).optional(),
  status: z.string().min(1).max(50).optional(),
  task_id: uuidSchema.optional(),
  limit: limit(50, 500),
});
export const pendingRunsQuerySchema = z.strictObject({ limit: limit(5, 200), agent_id: agentIdSchema.optional() });
