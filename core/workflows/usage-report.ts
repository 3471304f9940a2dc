import { priceUsage } from '../costs/pricing';
import type { Deps } from '../ports';
import { usageFields } from './run';

/** The usage columns an agent reports through PATCH /api/workflow-runs/:id and complete. */
export interface UsageReport {
  input_tokens?: number;
  output_tokens?: number;
  cached_tokens?: number;
  model_id?: string;
  cost_estimate?: number;
  currency?: string;
  reported_at?: string;
}

export interface StoredUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  model_id: string | null;
  cost_estimate: number | null;
  currency: string | null;
}

/**
 * THE pricing call site: a usage report that carries tokens but no cost_estimate gets one here,
 * from the MODEL_PRICES_FILE table (core/costs/pricing.ts). Without a price for the model the
 * cost stays null; it is never guessed.
 */
export function estimateMissingCost(deps: Pick<Deps, 'prices'>, usage: StoredUsage): number | null {
  return priceUsage(deps.prices, usage);
}

/**
 * The columns to write for a usage report, merged over what the run already holds:
 * reported_at defaults to now, cached_tokens may not exceed the (merged) input_tokens,
 * and a report without a cost is priced once at the call site above.
 */
export function usageColumns(deps: Pick<Deps, 'clock' | 'prices'>, stored: StoredUsage, report: UsageReport): Record<string, unknown> | undefined {
  const given = usageFields.filter((f) => report[f] !== undefined);
  if (given.length === 0) return undefined;
  const merged: StoredUsage = {
    input_tokens: report.input_tokens ?? stored.input_tokens,
    output_tokens: report.output_tokens ?? stored.output_tokens,
    cached_tokens: report.cached_tokens ?? stored.cached_tokens,
    model_id: report.model_id ?? stored.model_id,
    cost_estimate: report.cost_estimate ?? stored.cost_estimate,
    currency: report.currency ?? stored.currency,
  };
  const columns: Record<string, unknown> = Object.fromEntries(given.map((f) => [f, report[f]]));
  columns.reported_at = report.reported_at ? new Date(report.reported_at) : deps.clock.now();
  if (report.cost_estimate === undefined && (report.input_tokens !== undefined || report.output_tokens !== undefined || report.model_id !== undefined)) {
    const priced = estimateMissingCost(deps, { ...merged, cost_estimate: null });
    if (priced !== null) {
      columns.cost_estimate = priced;
      columns.currency = merged.currency ?? 'USD';
    }
  }
  if (columns.cost_estimate !== undefined && columns.cost_estimate !== null && !merged.currency && columns.currency === undefined) columns.currency = 'USD';
  return columns;
}

/** cached_tokens is a subset of input_tokens, also against what the run already stores. */
export function cachedWithinStoredInput(stored: StoredUsage, report: UsageReport): boolean {
  const input = report.input_tokens ?? stored.input_tokens;
  const cached = report.cached_tokens ?? stored.cached_tokens;
  return input === null || input === undefined || cached === null || cached === undefined || cached <= input;
}
