/**
 * The model price table (Deps.prices: MODEL_PRICES_FILE's table, read by infra/costs/model-prices.ts);
 * core/costs/pricing.ts validates documents into it and prices usage with it.
 */

/** How a model's or an agent's usage is paid for: per token, or by a plan whose runs cost nothing extra. */
export type BillingMode = 'metered' | 'subscription';

/**
 * One model's prices in USD per million tokens, from `effective_from` (a UTC day; absent: from the
 * beginning). Cache reads (cached_input) and cache writes default to the input price.
 */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
  cached_input_per_million?: number | undefined;
  cache_write_per_million?: number | undefined;
  effective_from?: string | undefined;
  billing?: BillingMode | undefined;
}

/** A model's prices over time, oldest first; the first may have no effective_from. */
export type PriceHistory = readonly ModelPrice[];

/** Model id -> its prices over time. */
export type ModelPriceTable = Readonly<Record<string, PriceHistory>>;
