import { usagePricing } from '../costs/price-book';
import { costAt, priceAt } from '../costs/pricing';
import { ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { cacheOverInput, usageFields } from './run';

/** The usage columns an agent reports through PATCH /api/workflow-runs/:id, heartbeat and complete. */
export interface UsageReport {
  input_tokens?: number;
  output_tokens?: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
  model_id?: string;
  cost_estimate?: number;
  currency?: string;
  reported_at?: string;
}

export interface StoredUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  cache_write_tokens: number | null;
  model_id: string | null;
  cost_estimate: number | null;
  currency: string | null;
  /** Who set cost_estimate: the agent, the price table or the runtime (null: neither, or before migration 0930). */
  cost_source: 'reported' | 'table' | 'runtime' | null;
  owner_agent_id: string | null;
  target_agent_id: string | null;
}

/**
 * The columns to write for a usage report, merged over what the run already holds (THE pricing
 * call site of usage writes):
 * - reported_at defaults to now; the usage counts at that instant, so it is priced at the price in
 *   effect that UTC day (core/costs/pricing.ts), from the table in effect (core/costs/price-book.ts);
 * - a cost the agent reports is kept as reported (cost_source 'reported') and never replaced by the
 *   table later; a report of tokens or model without a cost is priced (cost_source 'table'), or
 *   stays unpriced (null cost) when the model has no price: never a guess;
 * - billing: the agent profile's mode, else the model price's, else metered. A subscription run
 *   keeps its list price in cost_estimate as a shadow cost, which billed totals leave out;
 * - usage the runtime stood in with (cost_source 'runtime', core/costs/runtime-usage.ts) is replaced
 *   whole by the agent's first report, never added to: the run is counted once, as its agent says.
 */
export async function usageColumns(
  deps: Pick<Deps, 'clock' | 'prices'>,
  tx: Db,
  storedUsage: StoredUsage,
  report: UsageReport,
): Promise<Record<string, unknown> | undefined> {
  const given = usageFields.filter((f) => report[f] !== undefined);
  if (given.length === 0) return undefined;
  const replacesRuntime = storedUsage.cost_source === 'runtime';
  const stored: StoredUsage = replacesRuntime ? { ...storedUsage, ...withoutUsage } : storedUsage;
  const merged = {
    input_tokens: report.input_tokens ?? stored.input_tokens,
    output_tokens: report.output_tokens ?? stored.output_tokens,
    cached_tokens: report.cached_tokens ?? stored.cached_tokens,
    cache_write_tokens: report.cache_write_tokens ?? stored.cache_write_tokens,
    model_id: report.model_id ?? stored.model_id,
    currency: report.currency ?? stored.currency,
  };
  const columns: Record<string, unknown> = {
    ...(replacesRuntime ? withoutUsage : {}),
    ...Object.fromEntries(given.map((f) => [f, report[f]])),
  };
  const at = report.reported_at ? new Date(report.reported_at) : deps.clock.now();
  columns.reported_at = at;
  const { history, agentBilling } = await usagePricing(deps, tx, merged.model_id, stored.owner_agent_id ?? stored.target_agent_id);
  const price = priceAt(history, at);
  if (report.cost_estimate !== undefined) {
    columns.cost_source = 'reported';
  } else if (stored.cost_source !== 'reported') {
    const priced = costAt(price, merged);
    if (priced !== null) {
      columns.cost_estimate = priced;
      columns.currency = merged.currency ?? 'USD';
      columns.cost_source = 'table';
    }
  }
  if (columns.cost_estimate !== undefined && columns.cost_estimate !== null && !merged.currency && (columns.currency ?? null) === null)
    columns.currency = 'USD';
  columns.billing = agentBilling ?? price?.billing ?? 'metered';
  return columns;
}

/** The usage columns of a run that holds none. */
const withoutUsage = {
  input_tokens: null,
  output_tokens: null,
  cached_tokens: null,
  cache_write_tokens: null,
  model_id: null,
  cost_estimate: null,
  currency: null,
  cost_source: null,
} as const;

/** cacheOverInput (core/workflows/run.ts) of a report merged over what the run stores: a 400 naming the field. */
export function assertCacheWithinInput(
  stored: Pick<StoredUsage, 'input_tokens' | 'cached_tokens' | 'cache_write_tokens'>,
  report: UsageReport,
): void {
  const [over] = cacheOverInput({
    input_tokens: report.input_tokens ?? stored.input_tokens,
    cached_tokens: report.cached_tokens ?? stored.cached_tokens,
    cache_write_tokens: report.cache_write_tokens ?? stored.cache_write_tokens,
  });
  if (over) throw new ValidationError(over.message, [{ path: over.path, message: over.detail }]);
}
