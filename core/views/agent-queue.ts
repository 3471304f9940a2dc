import * as z from 'zod';
import type { Deps } from '../ports';
import { pageQuery, pagination, parseQuery } from '../query-params';
import { sqlList } from '../sql-text';
import { requireDb } from '../storage';
import { agentQueueTaskStatuses } from '../tasks/statuses';
import { agentNameSchema } from '../tasks/task';
import { pushJsonItems, taskJsonSelect, taskJsonText, type TaskJsonRow } from '../tasks/task-json';

/** `agent_name` is the original front end's name for `agent`; `agent` wins when both are given. */
export const agentQueueQuerySchema = z
  .strictObject({ agent: agentNameSchema.optional(), agent_name: agentNameSchema.optional(), ...pageQuery(200) })
  .transform(({ agent_name, agent, ...rest }, ctx) => {
    const name = agent ?? agent_name;
    if (name === undefined) {
      ctx.addIssue({ code: 'custom', path: ['agent'], message: 'required: the agent whose queue to show (or agent_name)' });
      return z.NEVER;
    }
    return { agent: name, ...rest };
  });

/**
 * GET /api/views/agent?agent=&page=&limit=: the agent's queue, tasks it owns that are ready or
 * in progress (not archived or deleted); work in progress first, then most urgent, then oldest.
 * Answered as JSON text: the tasks' text is built in PostgreSQL (core/tasks/task-json.ts), the same
 * bytes as JSON.stringify of `{agent, tasks, pagination}` with the task rows.
 */
export async function getAgentQueueJson(deps: Pick<Deps, 'storage'>, query: unknown): Promise<string[]> {
  const { agent, page, limit } = parseQuery(agentQueueQuerySchema, query);
  const db = requireDb(deps.storage);
  const where = `t.owner = $1 AND t.status IN ${sqlList(agentQueueTaskStatuses)} AND t.deleted_at IS NULL AND t.archived_at IS NULL`;
  const [tasks, count] = await Promise.all([
    db.query<TaskJsonRow>(
      `SELECT ${taskJsonSelect} FROM tasks t WHERE ${where}
        ORDER BY (t.status = 'in_progress') DESC, CASE t.priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END,
                 t.due_date NULLS LAST, t.created_at, t.id
        LIMIT $2 OFFSET $3`,
      [agent, limit, (page - 1) * limit],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks t WHERE ${where}`, [agent]),
  ]);
  const paging = pagination(page, limit, count.rows[0]?.n ?? 0);
  const pieces = [`{"agent":${JSON.stringify(agent)},"tasks":[`];
  pushJsonItems(pieces, tasks.rows.map(taskJsonText));
  pieces.push(`],"pagination":${JSON.stringify(paging)}}`);
  return pieces;
}
