import type { BudgetGate } from '../ports';

/**
 * The dispatcher's budget hook (spec 02 "Dispatcher reaction to budget state"). The dispatcher
 * asks the gate about every queued run it is about to dispatch; the gate is injected through
 * Deps.dispatcher, so the budgets module plugs its enforcement in without the dispatcher knowing
 * how budgets work, and tests can pass a scripted gate.
 */

/** The gate used when nothing else is plugged in: every run passes. */
export const passingBudgetGate: BudgetGate = {
  async open() {
    return { evaluate: async () => ({ verdict: 'pass' }), batchesIndependent: true };
  },
};
