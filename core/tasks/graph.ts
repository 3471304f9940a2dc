import { ValidationError } from '../errors';
import type { Db } from '../ports';

/**
 * Dependency and subtask graphs: references must name live tasks, a task never depends on or
 * contains itself, and no change may close a cycle. Checks run inside the writer's transaction
 * after `lockTaskGraph`, so two concurrent edits cannot each pass and together form a cycle.
 */

const TASK_GRAPH_LOCK = 7_100_001;

export async function lockTaskGraph(tx: Db): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [TASK_GRAPH_LOCK]);
}

/** 400 naming every referenced id that is not a live (not soft-deleted) task. */
export async function assertLiveTasks(db: Db, ids: readonly string[], field: string): Promise<void> {
  if (ids.length === 0) return;
  const { rows } = await db.query<{ id: string }>('SELECT id FROM tasks WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL', [ids]);
  const found = new Set(rows.map((r) => r.id));
  const missing = [...new Set(ids)].filter((id) => !found.has(id));
  if (missing.length) {
    throw new ValidationError(`${field}: no such task ${missing.join(', ')}`, [
      { path: field, message: `no such task: ${missing.join(', ')}` },
    ]);
  }
}

/**
 * The path start -> d -> ... -> start that the edges `start -> newTargets` would close in
 * `edges` (each task's current outgoing edges), or null when they close none. Breadth-first, so
 * the named cycle is a shortest one.
 */
export function findCycle(start: string, newTargets: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[] | null {
  const cameFrom = new Map<string, string>();
  const queue: string[] = [];
  for (const target of newTargets) {
    if (target === start) return [start, start];
    if (!cameFrom.has(target)) {
      cameFrom.set(target, start);
      queue.push(target);
    }
  }
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of edges.get(node) ?? []) {
      if (next === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at)) path.push(at);
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return null;
}

function cycleError(field: string, kind: string, cycle: string[]): ValidationError {
  const named = cycle.join(' -> ');
  return new ValidationError(`${field}: ${kind} cycle ${named}`, [{ path: field, message: `would form the cycle ${named}` }]);
}

/** 400 when task `taskId` depending on `dependencyIds` would close a dependency cycle (itself included). */
export async function assertNoDependencyCycle(db: Db, taskId: string, dependencyIds: readonly string[]): Promise<void> {
  if (dependencyIds.includes(taskId)) throw cycleError('dependency_ids', 'a task cannot depend on itself,', [taskId, taskId]);
  if (dependencyIds.length === 0) return;
  // Only the part of the graph reachable from the new targets matters; UNION keeps the walk linear.
  const { rows } = await db.query<{ id: string; dependency_ids: string[] }>(
    `WITH RECURSIVE reach(id) AS (
       SELECT unnest($2::uuid[])
       UNION
       SELECT dep FROM reach r JOIN tasks t ON t.id = r.id CROSS JOIN LATERAL unnest(t.dependency_ids) AS dep WHERE r.id <> $1
     )
     SELECT t.id, t.dependency_ids FROM reach JOIN tasks t ON t.id = reach.id WHERE t.id <> $1`,
    [taskId, dependencyIds],
  );
  const cycle = findCycle(taskId, dependencyIds, new Map(rows.map((r) => [r.id, r.dependency_ids])));
  if (cycle) throw cycleError('dependency_ids', 'dependency', cycle);
}

/** 400 when making `parentId` the parent of `childId` would make a task its own ancestor. */
export async function assertNoParentCycle(db: Db, childId: string, parentId: string): Promise<void> {
  if (parentId === childId) throw cycleError('parent_task_id', 'a task cannot contain itself,', [childId, childId]);
  const { rows } = await db.query<{ id: string; parent_task_id: string | null }>(
    `WITH RECURSIVE up(id) AS (
       SELECT $2::uuid
       UNION
       SELECT t.parent_task_id FROM up JOIN tasks t ON t.id = up.id WHERE t.parent_task_id IS NOT NULL AND up.id <> $1
     )
     SELECT t.id, t.parent_task_id FROM up JOIN tasks t ON t.id = up.id`,
    [childId, parentId],
  );
  // parent edges point child -> parent; containment cycles are the same search with one edge per node
  const edges = new Map(rows.map((r) => [r.id, r.parent_task_id ? [r.parent_task_id] : []]));
  const cycle = findCycle(childId, [parentId], edges);
  if (cycle) throw cycleError('parent_task_id', 'subtask', cycle);
}

/**
 * One cycle among `edges` reachable from `starts` (as a path ending where it began), or null.
 * Iterative depth-first search with three colours, so a graph of any depth cannot overflow the stack.
 */
export function findAnyCycle(starts: Iterable<string>, edges: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const onPath = new Map<string, number>();
  for (const root of starts) {
    if (done.has(root)) continue;
    const path: string[] = [root];
    const cursor: number[] = [0];
    onPath.set(root, 0);
    while (path.length) {
      const node = path[path.length - 1]!;
      const next = (edges.get(node) ?? [])[cursor[cursor.length - 1]!++];
      if (next === undefined) {
        path.pop();
        cursor.pop();
        onPath.delete(node);
        done.add(node);
      } else if (onPath.has(next)) {
        return [...path.slice(onPath.get(next)!), next];
      } else if (!done.has(next)) {
        onPath.set(next, path.length);
        path.push(next);
        cursor.push(0);
      }
    }
  }
  return null;
}

/**
 * 400 naming a cycle when the dependency or containment graph reachable from `taskIds` holds one:
 * the check for writes that replace many edges at once (legacy import). Run it after the writes, in
 * their transaction, so the error rolls them back.
 */
export async function assertAcyclicFrom(db: Db, taskIds: readonly string[]): Promise<void> {
  if (taskIds.length === 0) return;
  const { rows } = await db.query<{ id: string; dependency_ids: string[]; parent_task_id: string | null }>(
    `WITH RECURSIVE reach(id) AS (
       SELECT unnest($1::uuid[])
       UNION
       SELECT next FROM reach r JOIN tasks t ON t.id = r.id
         CROSS JOIN LATERAL unnest(t.dependency_ids || CASE WHEN t.parent_task_id IS NULL THEN '{}'::uuid[] ELSE ARRAY[t.parent_task_id] END) AS next
     )
     SELECT t.id, t.dependency_ids, t.parent_task_id FROM reach JOIN tasks t ON t.id = reach.id`,
    [taskIds],
  );
  const dependencyCycle = findAnyCycle(taskIds, new Map(rows.map((r) => [r.id, r.dependency_ids])));
  if (dependencyCycle) throw cycleError('dependency_ids', 'dependency', dependencyCycle);
  const parentCycle = findAnyCycle(taskIds, new Map(rows.map((r) => [r.id, r.parent_task_id ? [r.parent_task_id] : []])));
  if (parentCycle) throw cycleError('parent_task_id', 'subtask', parentCycle);
}
