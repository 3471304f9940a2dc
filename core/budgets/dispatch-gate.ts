import type { BudgetGate, BudgetVerdict, DispatchCandidate } from '../workflows/budget-gate';
import { enforcementFor, evaluateActiveBudgets, inFlightRunsInScope } from './enforcement';
import type { EvaluatedBudget } from './evaluation';
import type { ScopeChain } from './scope-chain';

function describe(budgets: readonly EvaluatedBudget[]): string {
  return budgets
    .map((e) => `${e.budget.name} (${e.budget.scope}${e.budget.scope_id ? ` ${e.budget.scope_id}` : ''}, ${e.window.key}: ${e.evaluation.pct_of_cap}% of cap)`)
    .join('; ');
}

export function chainOfCandidate(candidate: DispatchCandidate): ScopeChain {
  return {
    agents: [...new Set([candidate.targetAgentId, candidate.ownerAgentId].filter((a): a is string => !!a))],
    departmentId: candidate.departmentId,
    projectId: candidate.projectId,
  };
}

/**
 * The dispatcher's budget enforcement (spec 02): each tick evaluates every active budget once
 * (one statement; due ledger events appended), then each candidate's chain — agent, department,
 * project, fleet — decides: hard_stop breached stops it and the in-flight runs of those budgets'
 * scopes; pause_new_runs breached holds it; a warn budget at or over its cap lets it pass, warned.
 */
export const budgetDispatchGate: BudgetGate = {
  async open(db, at) {
    const evaluated = await evaluateActiveBudgets(db, at);
    const inFlight = new Map<string, Promise<string[]>>();
    return {
      async evaluate(candidate): Promise<BudgetVerdict> {
        const verdict = enforcementFor(evaluated, chainOfCandidate(candidate));
        const reason = describe(verdict.budgets);
        switch (verdict.enforcement) {
          case 'pass':
            return { verdict: 'pass' };
          case 'warn':
            return { verdict: 'warn', reason: `at or over cap (warn): ${reason}` };
          case 'hold':
            return { verdict: 'hold', reason: `paused by budget: ${reason}` };
          case 'stop': {
            const ids = new Set<string>();
            for (const e of verdict.budgets) {
              let scoped = inFlight.get(e.budget.id);
              if (!scoped) inFlight.set(e.budget.id, (scoped = inFlightRunsInScope(db, e.budget)));
              for (const id of await scoped) ids.add(id);
            }
            ids.delete(candidate.runId);
            return { verdict: 'stop', reason: `hard stop by budget: ${reason}`, cancelRunIds: [...ids] };
          }
        }
      },
    };
  },
};
