import * as z from 'zod';
import { parseQuery } from '../query-params';
import type { Deps } from '../ports';
import { requireDb } from '../storage';

/**
 * Spec 03 "Usage decision rule" of the workflow graph view, as data and a pure function:
 * go needs at least 8 distinct render days and at least 3 positive feedback rows; no-go is fewer
 * than 4 render days and no positive row; anything else is middle. Render days count open rows only.
 */
export const usageDecisionRule = {
  windowStart: '2026-08-25',
  windowDays: 21,
  go: { minRenderDays: 8, minPositive: 3 },
  noGo: { maxRenderDaysExclusive: 4, positive: 0 },
} as const;

export type UsageDecision = 'go' | 'no-go' | 'middle';

export interface GraphUsageRow {
  action: string;
  timestamp: Date;
  verdict?: string | null;
}

export function decideUsage(rows: readonly GraphUsageRow[]): {
  decision: UsageDecision;
  render_days: number;
  positive_feedback: number;
  opens: number;
  feedback: number;
} {
  const opens = rows.filter((r) => r.action === 'workflow-graph-open');
  const feedback = rows.filter((r) => r.action === 'workflow-graph-feedback');
  const renderDays = new Set(opens.map((r) => r.timestamp.toISOString().slice(0, 10))).size;
  const positive = feedback.filter((r) => r.verdict === 'up').length;
  const { go, noGo } = usageDecisionRule;
  const decision: UsageDecision =
    renderDays >= go.minRenderDays && positive >= go.minPositive
      ? 'go'
      : renderDays < noGo.maxRenderDaysExclusive && positive === noGo.positive
        ? 'no-go'
        : 'middle';
  return { decision, render_days: renderDays, positive_feedback: positive, opens: opens.length, feedback: feedback.length };
}

const querySchema = z.strictObject({
  start: z.iso.date({ message: 'must be a date YYYY-MM-DD' }).default(usageDecisionRule.windowStart),
  days: z.coerce
    .number({ message: 'must be a number' })
    .int()
    .min(1, 'must be at least 1')
    .max(366, 'must be at most 366')
    .default(usageDecisionRule.windowDays),
});

/** GET /api/workflow-graph/usage-decision?start=&days=: reads the audit rows of the window (UTC days) and applies the rule. */
export async function workflowGraphUsageDecision(deps: Pick<Deps, 'storage'>, query: unknown) {
  const q = parseQuery(querySchema, query);
  const from = new Date(`${q.start}T00:00:00.000Z`);
  const to = new Date(from.getTime() + q.days * 86_400_000);
  const { rows } = await requireDb(deps.storage).query<{ action: string; timestamp: Date; verdict: string | null }>(
    `SELECT action, timestamp, new_value->>'verdict' AS verdict FROM audit_log
      WHERE action IN ('workflow-graph-open', 'workflow-graph-feedback') AND timestamp >= $1 AND timestamp < $2`,
    [from, to],
  );
  return { window: { start: from, end: to, days: q.days }, rule: usageDecisionRule, ...decideUsage(rows) };
}
