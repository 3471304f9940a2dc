import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import type { BillingMode, ModelPrice, ModelPriceTable, PriceHistory } from '../ports';
import { historyOf, modelPriceSchema, modelPriceTableSchema } from './pricing';

/**
 * The price table in effect: the table PUT /api/costs/prices stored in the database
 * (model_prices, migration 0930) overrides MODEL_PRICES_FILE model by model: a model the database
 * lists is priced by its rows alone, any other by the file. Read at each use, in the caller's
 * transaction, so every runner prices alike the moment a PUT commits.
 */

interface PriceRow {
  model_id: string;
  effective_from: string;
  input_per_million: number;
  output_per_million: number;
  cached_input_per_million: number | null;
  cache_write_per_million: number | null;
  billing: BillingMode | null;
}

const priceColumns =
  'model_id, effective_from, input_per_million, output_per_million, cached_input_per_million, cache_write_per_million, billing';

function priceOfRow(row: Omit<PriceRow, 'model_id'>): ModelPrice {
  const price: ModelPrice = { input_per_million: row.input_per_million, output_per_million: row.output_per_million };
  if (row.cached_input_per_million !== null) price.cached_input_per_million = row.cached_input_per_million;
  if (row.cache_write_per_million !== null) price.cache_write_per_million = row.cache_write_per_million;
  if (row.effective_from !== '') price.effective_from = row.effective_from;
  if (row.billing !== null) price.billing = row.billing;
  return price;
}

function tableOfRows(rows: readonly PriceRow[]): Record<string, ModelPrice[]> {
  const table: Record<string, ModelPrice[]> = {};
  // rows come ordered by model and effective_from ('' first), the order a history keeps
  for (const row of rows) (table[row.model_id] ??= []).push(priceOfRow(row));
  return table;
}

async function storedPrices(db: Db, models?: readonly string[]): Promise<Record<string, ModelPrice[]>> {
  const { rows } = await db.query<PriceRow>(
    `SELECT ${priceColumns} FROM model_prices ${models ? 'WHERE model_id = ANY($1::text[])' : ''} ORDER BY model_id, effective_from`,
    models ? [models] : [],
  );
  return tableOfRows(rows);
}

/** The histories in effect for some models (the database's where it has the model, else the file's). */
export async function priceHistories(deps: Pick<Deps, 'prices'>, db: Db, models: readonly string[]): Promise<ModelPriceTable> {
  const table: Record<string, PriceHistory> = {};
  if (models.length === 0) return table;
  const stored = await storedPrices(db, models);
  for (const model of models) {
    const history = historyOf(stored, model) ?? historyOf(deps.prices, model);
    if (history) table[model] = history;
  }
  return table;
}

/** What pricing one usage write needs, in one round trip: the model's history and the agent's billing mode. */
export interface UsagePricing {
  history: PriceHistory | undefined;
  agentBilling: BillingMode | null;
}

export async function usagePricing(
  deps: Pick<Deps, 'prices'>,
  db: Db,
  modelId: string | null,
  agentId: string | null,
): Promise<UsagePricing> {
  const { rows } = await db.query<{ billing: BillingMode | null; prices: PriceRow[] | null }>(
    `SELECT (SELECT billing FROM agent_profiles WHERE agent_id = $2) AS billing,
            (SELECT json_agg(p ORDER BY p.effective_from) FROM (SELECT ${priceColumns} FROM model_prices WHERE model_id = $1) p) AS prices`,
    [modelId, agentId],
  );
  const row = rows[0];
  const history = row?.prices ? row.prices.map(priceOfRow) : historyOf(deps.prices, modelId);
  return { history, agentBilling: row?.billing ?? null };
}

/** One model of the table in effect, as GET and PUT /api/costs/prices answer it. */
export const pricedModelSchema = z.object({
  model_id: z.string(),
  /** database: set by PUT /api/costs/prices; file: MODEL_PRICES_FILE. */
  source: z.enum(['database', 'file']),
  prices: z.array(modelPriceSchema),
});
export const priceTableAnswerSchema = z.object({ models: z.array(pricedModelSchema), timestamp: z.string() });
export type PriceTableAnswer = z.infer<typeof priceTableAnswerSchema>;

async function tableInEffect(deps: Pick<Deps, 'prices' | 'clock'>, db: Db): Promise<PriceTableAnswer> {
  const stored = await storedPrices(db);
  const models = new Set([...Object.keys(stored), ...Object.keys(deps.prices)]);
  return {
    models: [...models].sort().map((model_id) => {
      const fromDb = historyOf(stored, model_id);
      return {
        model_id,
        source: fromDb ? ('database' as const) : ('file' as const),
        prices: [...(fromDb ?? historyOf(deps.prices, model_id) ?? [])],
      };
    }),
    timestamp: deps.clock.now().toISOString(),
  };
}

/** GET /api/costs/prices: every model the table in effect prices, with its history and where it comes from. */
export async function getPriceTable(deps: Pick<Deps, 'prices' | 'clock' | 'storage'>): Promise<PriceTableAnswer> {
  return tableInEffect(deps, requireDb(deps.storage));
}

export const putPriceTableSchema = z.strictObject({
  /** Model id -> one price or a list of prices by effective_from; {} removes every stored price (the file's apply again). */
  prices: modelPriceTableSchema,
  actor: z.string().trim().min(1, 'must not be empty').max(200).default(OPERATOR_ACTOR),
});

/**
 * PUT /api/costs/prices {prices, actor?}: replaces the stored table as a whole (one transaction,
 * one audit row with the table before and after, a prices:changed event). Usage already priced
 * keeps its cost: POST /api/costs/reprice applies a change to a past window.
 */
export async function putPriceTable(deps: Deps, body: unknown): Promise<PriceTableAnswer> {
  const input = parseInput(putPriceTableSchema, body ?? {}, 'price table');
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    // one writer at a time: two PUTs interleaving their DELETE and INSERT could leave a mix
    await tx.query('LOCK TABLE model_prices IN SHARE ROW EXCLUSIVE MODE');
    const before = await storedPrices(tx);
    await tx.query('DELETE FROM model_prices');
    const rows = Object.entries(input.prices).flatMap(([model, history]) => history.map((p) => ({ model, ...p })));
    if (rows.length > 0) {
      await tx.query(
        `INSERT INTO model_prices (model_id, effective_from, input_per_million, output_per_million, cached_input_per_million, cache_write_per_million, billing, created_at, updated_at)
         SELECT model_id, coalesce(effective_from, ''), input_per_million, output_per_million, cached_input_per_million, cache_write_per_million, billing, $2, $2
           FROM jsonb_to_recordset($1::jsonb) AS p(model_id text, effective_from text, input_per_million double precision, output_per_million double precision,
                cached_input_per_million double precision, cache_write_per_million double precision, billing text)`,
        [JSON.stringify(rows.map(({ model, ...p }) => ({ model_id: model, ...p }))), deps.clock.now()],
      );
    }
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'prices_replaced',
      entityType: 'model_prices',
      entityId: 'price-table',
      oldValue: before,
      newValue: input.prices,
      event: { name: 'prices:changed', channel: 'events', payload: { models: Object.keys(input.prices).length } },
    });
  });
  return tableInEffect(deps, db);
}
