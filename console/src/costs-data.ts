import type { operations } from '../../mcp/task-server-paths';
import { api, expectData } from './api';
import { availableOf } from './costs-read';

/** The Costs screen's reads and writes (docs/console.md, Costs), each one route through the typed client. */

type RollupAnswer = operations['costsGetCostRollup']['responses'][200]['content']['application/json'];
export type Rollup = Extract<RollupAnswer, { available: true }>;
export type RollupGroup = Rollup['groups'][number];
export type PriceTable = operations['costsGetModelPrices']['responses'][200]['content']['application/json'];
export type ModelPrice = PriceTable['models'][number]['prices'][number];
export type Reprice = operations['costsRepriceRuns']['responses'][200]['content']['application/json'];
export type BudgetCreate = operations['budgetsCreateBudget']['requestBody'] extends { content: { 'application/json': infer B } }
  ? B
  : never;
export type BudgetPatch = operations['budgetsUpdateBudget']['requestBody'] extends { content: { 'application/json': infer B } } ? B : never;

/** What spend can be grouped by (GET /api/costs/rollup's group_by). */
export const spendGroupings = ['agent', 'department', 'project', 'model', 'workflow_type'] as const;
export type SpendGrouping = (typeof spendGroupings)[number];
/** The windows offered, in days (the rollup takes 1..90). */
export const spendWindows = [7, 30, 90] as const;

export async function loadRollup(groupBy: SpendGrouping, days: number): Promise<Rollup> {
  return availableOf(await expectData(api().GET('/api/costs/rollup', { params: { query: { group_by: groupBy, days: String(days) } } })));
}

export const loadPrices = (): Promise<PriceTable> => expectData(api().GET('/api/costs/prices'));

export const savePrices = (prices: Record<string, ModelPrice[]>): Promise<PriceTable> =>
  expectData(api().PUT('/api/costs/prices', { body: { prices } }));

/** POST /api/costs/reprice: a preview (dry_run, nothing changes) or the reprice itself. */
export const reprice = (from: string, to: string, dryRun: boolean): Promise<Reprice> =>
  expectData(api().POST('/api/costs/reprice', { body: { from, to, dry_run: dryRun } }));

export async function createBudget(body: BudgetCreate) {
  return availableOf(await expectData(api().POST('/api/budgets', { body })));
}

export async function updateBudget(id: string, body: BudgetPatch) {
  return availableOf(await expectData(api().PATCH('/api/budgets/{id}', { params: { path: { id } }, body })));
}
