import * as z from 'zod';
import { parseInput } from '../validation';
import { roundUsd } from './usage';

const perMillion = z.number().finite().min(0, 'must be at least 0');

/** One model's prices in USD per million tokens; cached input defaults to the input price. */
export const modelPriceSchema = z.strictObject({
  input_per_million: perMillion,
  output_per_million: perMillion,
  cached_input_per_million: perMillion.optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** The MODEL_PRICES_FILE document: model id -> prices. */
export const modelPriceTableSchema = z.record(z.string().min(1), modelPriceSchema);
export type ModelPriceTable = z.infer<typeof modelPriceTableSchema>;

export function parseModelPriceTable(value: unknown): ModelPriceTable {
  return parseInput(modelPriceTableSchema, value, 'model price table');
}

export interface Usage {
  model_id?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cached_tokens?: number | null;
}

/**
 * The cost of a usage report in USD, or null when it cannot be known: no model, no price for the
 * model, or no token counts. Never a guess. Cached tokens are a subset of input: they are priced at
 * the cached rate instead of (never in addition to) the input rate.
 */
export function priceUsage(prices: ModelPriceTable, usage: Usage): number | null {
  if (!usage.model_id) return null;
  const price = Object.hasOwn(prices, usage.model_id) ? prices[usage.model_id] : undefined;
  if (!price) return null;
  const input = usage.input_tokens ?? null;
  const output = usage.output_tokens ?? null;
  if (input === null && output === null) return null;
  const inputTokens = Math.max(0, input ?? 0);
  const cached = Math.min(Math.max(0, usage.cached_tokens ?? 0), inputTokens);
  const cachedRate = price.cached_input_per_million ?? price.input_per_million;
  const cost =
    (inputTokens - cached) * price.input_per_million + cached * cachedRate + Math.max(0, output ?? 0) * price.output_per_million;
  return roundUsd(cost / 1_000_000);
}
