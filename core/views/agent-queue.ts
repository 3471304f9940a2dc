import * as z from 'zod';
import type { Deps } from '../ports';
import { pageQuery, pagination, parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { agentNameSchema, taskColumns, type Task } from '../tasks/task';

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
 */
export async function getAgentQueue(deps: Pick<Deps, 'storage'>, query: unknown) {
  const { agent, page, limit } = parseQuery(agentQueueQuerySchema, query);
  const db = requireDb(deps.storage);
  const where = `owner = $1 AND status IN ('ready', 'in_progress') AND deleted_at IS NULL AND archived_at IS NULL`;
  const [tasks, count] = await Promise.all([
    db.query<Task>(
      `SELECT ${taskColumns} FROM tasks WHERE ${where}
        ORDER BY (status = 'in_progress') DESC, CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END,
                 due_date NULLS LAST, created_at, id
        LIMIT $2 OFFSET $3`,
      [agent, limit, (page - 1) * limit],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE ${where}`, [agent]),
  ]);
  return { agent, tasks: tasks.rows, pagination: pagination(page, limit, count.rows[0]?.n ?? 0) };
}
