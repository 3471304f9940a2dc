import * as z from 'zod';
import { budgetColumns, type BudgetRow } from '../budgets/budget';
import { evaluateBudgets } from '../budgets/evaluation';
import { budgetInChain } from '../budgets/scope-chain';
import { overCapEvent } from '../budgets/status';
import { activePauses } from '../agents/dispatch-controls';
import { silentAgents } from '../inbox/inbox';
import type { Db } from '../ports';
import { liveRunStatuses } from '../workflows/caps';

/**
 * Why a card of the board is stuck, for the reasons the board's own rows cannot tell (its status,
 * blocked reason, dependencies and claim are on the task): a run of the task waits for an approval;
 * a queued run of it is held by a budget at its cap that holds or stops new runs; the agent of a
 * live or queued run of it, or the holder of its claim, has its dispatch paused or has gone silent.
 * Listed in that order of precedence, one reason a task.
 */
export const boardStuckKinds = ['approval', 'budget', 'agent_paused', 'agent_silent'] as const;
export const boardStuckSchema = z.object({ kind: z.enum(boardStuckKinds), reason: z.string() });
export type BoardStuck = z.infer<typeof boardStuckSchema>;

interface RunRow {
  task_id: string;
  status: string;
  owner: string | null;
  target: string | null;
  department: string | null;
  approval_step: string | null;
}

const minutesSince = (then: Date | null, now: Date) =>
  then ? `${Math.max(1, Math.round((now.getTime() - then.getTime()) / 60_000))} min` : 'ever';

/** The stuck reasons of the project's live, unarchived tasks, by task id (tasks with none are absent). */
export async function boardStuckReasons(db: Db, projectId: string, now: Date): Promise<Record<string, BoardStuck>> {
  const [runs, claims] = await Promise.all([
    db.query<RunRow>(
      `SELECT r.task_id, r.status, r.owner_agent_id AS owner, coalesce(r.target_agent_id, w.agent_id) AS target,
              coalesce(ap.department_id, wt.department_id) AS department,
              (SELECT a.step_name FROM workflow_approvals a WHERE a.workflow_run_id = r.id AND a.status = 'pending' ORDER BY a.created_at LIMIT 1) AS approval_step
         FROM workflow_runs r
         JOIN tasks t ON t.id = r.task_id
         LEFT JOIN workflow_agent_routing w ON w.workflow_type = r.workflow_type
         LEFT JOIN agent_profiles ap ON ap.agent_id = coalesce(r.owner_agent_id, r.target_agent_id, w.agent_id)
         LEFT JOIN workflow_templates wt ON wt.name = r.workflow_type
        WHERE t.project_id = $1 AND t.deleted_at IS NULL AND t.archived_at IS NULL AND (r.status = 'queued' OR r.status = ANY($2::text[]))`,
      [projectId, liveRunStatuses],
    ),
    db.query<{ id: string; locked_by: string }>(
      `SELECT id, locked_by FROM tasks WHERE project_id = $1 AND locked_by IS NOT NULL AND deleted_at IS NULL AND archived_at IS NULL`,
      [projectId],
    ),
  ]);
  const stuck: Record<string, BoardStuck> = {};
  if (runs.rows.length === 0 && claims.rows.length === 0) return stuck;
  const queued = runs.rows.filter((r) => r.status === 'queued');
  const [pauses, silent, holding] = await Promise.all([
    activePauses(db, now),
    silentAgents(db, now),
    queued.length > 0 ? holdingBudgets(db, now) : Promise.resolve([]),
  ]);
  const pausedAgents = new Map(pauses.map((p) => [p.agent_id, p.pause_reason]));
  const silentSince = new Map(silent.flatMap((s) => (s.kind === 'agent_silent' ? [[s.agent_id, s.last_heartbeat_at] as const] : [])));

  const note = (taskId: string, found: BoardStuck) => {
    const held = stuck[taskId];
    if (!held || boardStuckKinds.indexOf(found.kind) < boardStuckKinds.indexOf(held.kind)) stuck[taskId] = found;
  };
  const noteAgent = (taskId: string, agent: string | null) => {
    if (!agent) return;
    if (pausedAgents.has(agent)) {
      const why = pausedAgents.get(agent);
      note(taskId, { kind: 'agent_paused', reason: `Its agent ${agent} is paused${why ? ` (${why})` : ''}` });
    } else if (silentSince.has(agent)) {
      note(taskId, {
        kind: 'agent_silent',
        reason: `Its agent ${agent} is silent: no sign of life for ${minutesSince(silentSince.get(agent) ?? null, now)}`,
      });
    }
  };
  for (const run of runs.rows) {
    if (run.approval_step) note(run.task_id, { kind: 'approval', reason: `Waiting for an approval of ${run.approval_step}` });
    if (run.status === 'queued') {
      const chain = { agents: [run.owner, run.target].filter((a): a is string => Boolean(a)), departmentId: run.department, projectId };
      const budget = holding.find((b) => budgetInChain(b, chain));
      if (budget)
        note(run.task_id, {
          kind: 'budget',
          reason: `Held by budget ${budget.name} (${overCapEvent[budget.action_on_exceed].replace('_', ' ')} at its cap)`,
        });
    }
    noteAgent(run.task_id, run.owner ?? run.target);
  }
  for (const claim of claims.rows) noteAgent(claim.id, claim.locked_by);
  return stuck;
}

/** Active budgets at or over their cap whose action holds or stops new runs (read only: no ledger event). */
async function holdingBudgets(db: Db, now: Date): Promise<BudgetRow[]> {
  const { rows } = await db.query<BudgetRow>(`SELECT ${budgetColumns} FROM budgets WHERE active AND action_on_exceed <> 'warn'`);
  if (rows.length === 0) return [];
  return (await evaluateBudgets(db, rows, now)).filter((e) => e.evaluation.atOrOver).map((e) => e.budget);
}
