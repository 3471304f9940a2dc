import * as z from 'zod';
import type { BillingMode, ModelPrice, ModelPriceTable, PriceHistory } from '../ports';
import type { SameShape } from '../same-shape';
import { parseInput } from '../validation';
import { isoDay, roundUsd } from './usage';

const perMillion = z.number({ message: 'must be a number' }).finite().min(0, 'must be at least 0');

export const billingModes = ['metered', 'subscription'] as const satisfies readonly BillingMode[];
export const billingSchema = z.enum(billingModes, { message: 'must be metered or subscription' });

/** A ModelPrice (core/ports/prices.ts) as a document writes it. */
export const modelPriceSchema = z.strictObject({
  input_per_million: perMillion,
  output_per_million: perMillion,
  cached_input_per_million: perMillion.optional(),
  cache_write_per_million: perMillion.optional(),
  effective_from: z.iso.date({ message: 'must be a day, YYYY-MM-DD' }).optional(),
  billing: billingSchema.optional(),
});
const modelPriceMatchesPort: SameShape<z.infer<typeof modelPriceSchema>, ModelPrice> = true;
void modelPriceMatchesPort;

const modelIdSchema = z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters');

/** A model's entry in a price table document: one price, or a list of prices by effective_from. */
const priceHistorySchema = z
  .preprocess(
    (v) => (Array.isArray(v) ? v : [v]),
    z.array(modelPriceSchema).min(1, 'must list at least one price').max(100, 'at most 100 prices'),
  )
  .superRefine((prices, ctx) => {
    const seen = new Set<string>();
    prices.forEach((p, i) => {
      const day = p.effective_from ?? '';
      if (seen.has(day))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'effective_from'],
          message: day ? `${day} is listed twice` : 'only one price may have no effective_from',
        });
      seen.add(day);
    });
  })
  .transform((prices): PriceHistory => [...prices].sort((a, b) => (a.effective_from ?? '').localeCompare(b.effective_from ?? '')));

/** A price table (MODEL_PRICES_FILE, or the body of PUT /api/costs/prices): model id -> price or prices. */
export const modelPriceTableSchema = z
  .record(modelIdSchema, priceHistorySchema)
  .refine((t) => Object.keys(t).length <= 1000, { message: 'at most 1000 models' });

export function parseModelPriceTable(value: unknown): ModelPriceTable {
  return parseInput(modelPriceTableSchema, value, 'model price table');
}

/** The price in effect on the UTC day of `at`: the latest whose effective_from is not after it. */
export function priceAt(history: PriceHistory | undefined, at: Date): ModelPrice | undefined {
  if (!history) return undefined;
  const day = isoDay(at);
  let found: ModelPrice | undefined;
  for (const price of history) if ((price.effective_from ?? '') <= day) found = price;
  return found;
}

/** The history of one model in a table, never an inherited property of the object. */
export function historyOf(table: ModelPriceTable, modelId: string | null | undefined): PriceHistory | undefined {
  return modelId && Object.hasOwn(table, modelId) ? table[modelId] : undefined;
}

export interface Usage {
  model_id?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cached_tokens?: number | null;
  cache_write_tokens?: number | null;
}

/**
 * The cost of a usage report in USD at one price, or null when it cannot be known: no price, or
 * no token counts. Never a guess. Cache reads (cached_tokens) and cache writes are subsets of the
 * input: they are priced at their rate instead of (never in addition to) the input rate.
 */
export function costAt(price: ModelPrice | undefined, usage: Usage): number | null {
  if (!price) return null;
  const input = usage.input_tokens ?? null;
  const output = usage.output_tokens ?? null;
  if (input === null && output === null) return null;
  const inputTokens = Math.max(0, input ?? 0);
  const cached = Math.min(Math.max(0, usage.cached_tokens ?? 0), inputTokens);
  const written = Math.min(Math.max(0, usage.cache_write_tokens ?? 0), inputTokens - cached);
  const cost =
    (inputTokens - cached - written) * price.input_per_million +
    cached * (price.cached_input_per_million ?? price.input_per_million) +
    written * (price.cache_write_per_million ?? price.input_per_million) +
    Math.max(0, output ?? 0) * price.output_per_million;
  return roundUsd(cost / 1_000_000);
}

/** The cost of usage at `at` by a price table: the model's price in effect that day. */
export function priceUsage(table: ModelPriceTable, usage: Usage, at: Date): number | null {
  return costAt(priceAt(historyOf(table, usage.model_id), at), usage);
}
