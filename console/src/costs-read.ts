import type { operations } from '../../mcp/task-server-paths';
import { api, expectData } from './api';
import type { Topic } from './queries';

/**
 * The Costs screen's first read, every budget's burn-down (GET /api/budgets/burn-down), kept apart
 * from costs-data.ts so that app.tsx can start it before the screen's chunk has loaded without
 * taking the rest of the screen's code into the initial download.
 */
type BurnDownsAnswer = operations['budgetsGetBudgetBurnDowns']['responses'][200]['content']['application/json'];
export type BurnDowns = Extract<BurnDownsAnswer, { available: true }>;
export type BurnDown = BurnDowns['burn_downs'][number];

/** A budget's burn-down moves with its spend (runs' usage) and with the budget itself. */
export const burnDownTopics: readonly Topic[] = ['budgets', 'runs'];
export const BURN_DOWNS_KEY = 'budgets:burn-down';

/** The answer when the server has the data; its reason as the error when it degraded (spec 02's {available: false}). */
export function availableOf<T extends { available: boolean }>(answer: T): Extract<T, { available: true }> {
  if (!answer.available) throw new Error(`unavailable: ${(answer as { reason?: string }).reason ?? 'no reason given'}`);
  return answer as Extract<T, { available: true }>;
}

export async function loadBurnDowns(): Promise<BurnDowns> {
  return availableOf(await expectData(api().GET('/api/budgets/burn-down')));
}

export const costsRead = () => ({ key: BURN_DOWNS_KEY, topics: burnDownTopics, load: loadBurnDowns });
