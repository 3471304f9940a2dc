import * as z from 'zod';
import { roundUsd } from '../costs/usage';
import type { BudgetAction, BudgetRow } from './budget';

export const budgetStatuses = ['under', 'warned', 'breached'] as const;
export type BudgetStatus = (typeof budgetStatuses)[number];
export type LedgerEventKind = 'warned' | 'paused' | 'hard_stopped' | 'recovered' | 'unpriced_usage';

/** Derived spend; `unpriced_runs` counts the runs with tokens but no cost, whose USD is unknown. */
export const spendSchema = z.object({ usd: z.number(), tokens: z.number(), runs: z.number().int(), unpriced_runs: z.number().int() });
export type Spend = z.infer<typeof spendSchema>;

/** Spec 02 "Budget status": what a budget at or over its cap is, by its action (the boundary is inclusive). */
export const overCapStatus: Record<BudgetAction, BudgetStatus> = {
  warn: 'warned',
  pause_new_runs: 'breached',
  hard_stop: 'breached',
};

/** The ledger event a budget at or over its cap emits, once per period. */
export const overCapEvent: Record<BudgetAction, LedgerEventKind> = {
  warn: 'warned',
  pause_new_runs: 'paused',
  hard_stop: 'hard_stopped',
};

export interface Evaluation {
  spent: number;
  cap: number;
  unit: 'usd' | 'tokens';
  /** Spend as a percentage of the cap: 100 exactly at the cap. */
  pct_of_cap: number;
  status: BudgetStatus;
  atOrOver: boolean;
}

export function evaluate(budget: Pick<BudgetRow, 'cap_usd' | 'cap_tokens' | 'action_on_exceed'>, spend: Spend): Evaluation {
  const unit = budget.cap_usd !== null ? 'usd' : 'tokens';
  const cap = (unit === 'usd' ? budget.cap_usd : budget.cap_tokens) ?? 0;
  const spent = unit === 'usd' ? roundUsd(spend.usd) : spend.tokens;
  const atOrOver = cap > 0 && spent >= cap;
  return {
    spent,
    cap,
    unit,
    // two decimals, but never a rounded-up 100 while still under the cap
    pct_of_cap: cap > 0 ? Math.min(Math.round((spent / cap) * 10_000) / 100, atOrOver ? Infinity : 99.99) : 0,
    status: atOrOver ? overCapStatus[budget.action_on_exceed] : 'under',
    atOrOver,
  };
}
