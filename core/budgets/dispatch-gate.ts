import type { BudgetGate, BudgetVerdict, DispatchCandidate } from '../ports';
import type { Expectation } from './budget';
import { budgetsWithoutRoom, enforcementFor, evaluateActiveBudgets, expectedUsdIn, inFlightRunsInScope } from './enforcement';
import type { EvaluatedBudget } from './evaluation';
import { budgetInChain, type ScopeChain } from './scope-chain';
import { reservationsOf } from './spend';

function describe(budgets: readonly EvaluatedBudget[]): string {
  return budgets
    .map(
      (e) =>
        `${e.budget.name} (${e.budget.scope}${e.budget.scope_id ? ` ${e.budget.scope_id}` : ''}, ${e.window.key}: ${e.evaluation.pct_of_cap}% of cap)`,
    )
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
  async open(db, at, events) {
    const evaluated = await evaluateActiveBudgets(db, events, at);
    const inFlight = new Map<string, Promise<string[]>>();
    // reservations of live runs, re-read under each batch's lock, plus this batch's dispatches
    let reserved = new Map(evaluated.map((e) => [e.budget.id, { ...e.reserved }]));
    const blocking = evaluated.filter((e) => e.budget.active && e.budget.action_on_exceed !== 'warn');
    // agents on a subscription: their runs' expected USD takes no room in a budget of basis billed
    const subscribers = blocking.length
      ? new Set(
          (await db.query<{ agent_id: string }>(`SELECT agent_id FROM agent_profiles WHERE billing = 'subscription'`)).rows.map(
            (r) => r.agent_id,
          ),
        )
      : new Set<string>();
    const expectationOf = (candidate: DispatchCandidate): Expectation => ({
      usd: candidate.expectedCostUsd,
      tokens: candidate.expectedTokens,
      subscription: subscribers.has(candidate.ownerAgentId ?? candidate.targetAgentId ?? ''),
    });
    const shortOf = (candidate: DispatchCandidate): EvaluatedBudget[] =>
      budgetsWithoutRoom(blocking, chainOfCandidate(candidate), expectationOf(candidate), (e) => reserved.get(e.budget.id)!);
    return {
      // without a budget that holds or stops, verdicts are pass or warn whatever else is dispatched
      batchesIndependent: blocking.length === 0,
      async beginBatch(tx) {
        if (blocking.length)
          reserved = new Map(
            [
              ...(await reservationsOf(
                tx,
                blocking.map((e) => e.budget),
              )),
            ].map(([id, r]) => [id, { ...r }]),
          );
      },
      dispatched(candidate) {
        const chain = chainOfCandidate(candidate);
        const expected = expectationOf(candidate);
        for (const e of blocking) {
          if (!budgetInChain(e.budget, chain)) continue;
          const held = reserved.get(e.budget.id)!;
          held.usd += expectedUsdIn(e.budget, expected);
          held.tokens += candidate.expectedTokens ?? 0;
        }
      },
      async evaluate(candidate): Promise<BudgetVerdict> {
        const verdict = enforcementFor(evaluated, chainOfCandidate(candidate));
        const reason = describe(verdict.budgets);
        if (verdict.enforcement === 'pass' || verdict.enforcement === 'warn') {
          // spend alone is under every cap; spend + what live runs reserve + this run's expectation may not fit
          const short = shortOf(candidate);
          if (short.length) return { verdict: 'hold', reason: `reserved by live runs: ${describe(short)}` };
        }
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
