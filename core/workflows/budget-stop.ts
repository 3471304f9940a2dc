import type { Db, Deps } from '../ports';
import { updateRunBatch } from './run-audit';
import { transitionOf } from './run-status';
import { releaseTasksOfEndedRuns } from './run-store';

/** How a run cancelled by a budget's hard stop says so in last_error; its heartbeats and completes answer `stop` after it. */
export const BUDGET_STOP_ERROR = 'cancelled by budget hard stop: ';

/** A budget stop's assignments over r and x(id, reason), $1 the time. */
const budgetStopAssignments: Record<string, string> = {
  status: `'${transitionOf('budget_stop').to}'`,
  finished_at: '$1',
  gateway_session_active: 'false',
  last_error: `'${BUDGET_STOP_ERROR}' || x.reason`,
};

/** Budget hard stop: the runs (locked by the caller) are cancelled with the budget's reason (the tick's, and a live run's heartbeat). */
export async function budgetCancel(deps: Deps, tx: Db, stops: Array<[string, string]>, at: Date, actor: string): Promise<number> {
  const after = await updateRunBatch(deps, tx, at, {
    assignments: budgetStopAssignments,
    ids: stops.map((s) => s[0]),
    values: [{ name: 'reason', type: 'text', values: stops.map((s) => s[1]) }],
    actor,
    action: 'budget_stopped',
  });
  await releaseTasksOfEndedRuns(deps, tx, after);
  return after.length;
}
