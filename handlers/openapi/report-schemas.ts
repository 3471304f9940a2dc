import * as z from 'zod';

/**
 * Pieces of success bodies that the rows of more than one area use (handlers/<area>/routes.ts):
 * a report's loose objects and counts, a delete's and a capped list's answers, the runtime's health
 * and scheduled jobs (also in the Settings overview), an unpriced run (costs and budgets). A schema
 * one area alone uses lives in that area's rows file; the entity schemas live in core beside their
 * types. Objects are loose where a body carries more than it promises (a runtime's own fields, a
 * report's optional detail); a key listed is one the server always sends.
 */

export const counts = z.record(z.string(), z.number());

export const anyObject = z.record(z.string(), z.unknown());

/** A delete's answer: `{deleted: true, <key>: id}`. */
export const deleted = (key: string) => z.object({ deleted: z.literal(true), [key]: z.string() });

/** A capped listing: its items under `key`, the total, and whether the list was cut. */
export const listOf = <T extends z.ZodType>(key: string, item: T) =>
  z.object({ [key]: z.array(item), total: z.number().int(), truncated: z.boolean() });

/** An unpriced run (tokens, no cost) as the ledger and the rollup list it (core/budgets/spend.ts, UnpricedRun). */
export const unpricedRunSchema = z.object({
  id: z.string(),
  workflow_type: z.string(),
  agent_id: z.string().nullable(),
  model_id: z.string().nullable(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  usage_at: z.date(),
});

/** The runtime's records as it gives them, and which way they were read (`runtime-cli`, …). */
export const records = z.array(z.unknown());
export const source = z.string();

export const runtimeHealthSchema = z.object({
  source,
  ok: z.boolean(),
  channels: anyObject,
  agents: records,
  heartbeatSeconds: z.number().nullable(),
  defaultAgentId: z.string().nullable(),
});

export const scheduledJobsSchema = z.object({
  // a legacy definition file's job carries its own fields beside these
  jobs: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      schedule: z.string(),
      enabled: z.boolean(),
      status: z.enum(['success', 'failed', 'unknown']),
      lastRun: z.string().nullable(),
      nextRun: z.string().nullable(),
      agentId: z.string().nullable(),
      model: z.string().nullable(),
      legacy: z.boolean(),
      _raw: z.unknown(),
    }),
  ),
  runtime: z.looseObject({ ok: z.boolean() }),
  unreadableLegacyFiles: z.array(z.unknown()).optional(),
});
