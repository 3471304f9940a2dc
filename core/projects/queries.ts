import * as z from 'zod';
import { parseQuery, queryInt } from '../query-params';
import { NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { closedTaskStatuses } from '../tasks/statuses';
import { parseId, uuidSchema } from '../validation';
import { projectColumns, projectSchema, projectStatusSchema, type Project } from './project';

/** Query of GET /api/projects (spec: "not shown"; documented in docs/api/health-auth-projects.md). */
export const listProjectsQuerySchema = z.strictObject({
  status: projectStatusSchema.optional(),
  workspace_id: uuidSchema.optional(),
  /** The original front end asks for a page of projects; without it, all of them. */
  limit: queryInt(1, 10_000).optional(),
});

/** Projects oldest first, optionally filtered by status and workspace. No workflow expansion. */
export async function listProjects(deps: Pick<Deps, 'storage'>, query: unknown): Promise<Project[]> {
  const filter = parseQuery(listProjectsQuerySchema, query);
  if (deps.storage.mode === 'fallback') {
    return deps.storage.fallback.projects
      .filter((p) => (!filter.status || p.status === filter.status) && (!filter.workspace_id || p.workspace_id === filter.workspace_id))
      .slice(0, filter.limit);
  }
  const { rows } = await deps.storage.db.query<Project>(
    `SELECT ${projectColumns} FROM projects
      WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR workspace_id = $2)
      ORDER BY created_at, id
      LIMIT $3`,
    [filter.status ?? null, filter.workspace_id ?? null, filter.limit ?? null],
  );
  return rows;
}

/** A project as GET /api/projects/:id answers it: `default_workflow` when default_workflow_id resolves. */
export const projectWithWorkflowSchema = projectSchema.extend({ default_workflow: z.record(z.string(), z.unknown()).optional() });
export type ProjectWithWorkflow = z.infer<typeof projectWithWorkflowSchema>;

/** One project; `default_workflow` is attached when default_workflow_id is set and resolves. */
export async function getProject(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<ProjectWithWorkflow> {
  const id = parseId(rawId);
  if (deps.storage.mode === 'fallback') {
    const project = deps.storage.fallback.projects.find((p) => p.id === id);
    if (!project) throw new NotFoundError(`project ${id} not found`);
    return project;
  }
  const project = await findProject(deps.storage.db, id);
  if (!project) throw new NotFoundError(`project ${id} not found`);
  return withDefaultWorkflow(deps.storage.db, project);
}

export async function findProject(db: Db, id: string, lock = false): Promise<Project | undefined> {
  const { rows } = await db.query<Project>(`SELECT ${projectColumns} FROM projects WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

async function withDefaultWorkflow(db: Db, project: Project): Promise<ProjectWithWorkflow> {
  if (!project.default_workflow_id) return project;
  const { rows } = await db.query('SELECT id, name, description, states, is_default, created_at, updated_at FROM workflows WHERE id = $1', [
    project.default_workflow_id,
  ]);
  return rows[0] ? { ...project, default_workflow: rows[0] } : project;
}

export interface ProjectSummary extends ProjectWithWorkflow {
  task_counts: { total: number; open: number; completed: number; by_status: Record<string, number> };
}

/**
 * The startup project: the oldest active project, else the oldest project of any status.
 * Its task counts leave out soft-deleted tasks.
 */
export async function getDefaultProject(deps: Pick<Deps, 'storage'>): Promise<ProjectSummary> {
  const storage = deps.storage;
  const projects =
    storage.mode === 'fallback'
      ? storage.fallback.projects
      : (
          await storage.db.query<Project>(
            `SELECT ${projectColumns} FROM projects
              ORDER BY (status = 'active') DESC, created_at, id LIMIT 1`,
          )
        ).rows;
  const project = projects.find((p) => p.status === 'active') ?? projects[0];
  if (!project) throw new NotFoundError('no project exists yet; create one with POST /api/projects');

  let byStatus: Record<string, number>;
  if (storage.mode === 'fallback') {
    byStatus = {};
    for (const task of storage.fallback.tasks) {
      if (task.project_id !== project.id || task.deleted_at) continue;
      const status = String(task.status);
      byStatus[status] = (byStatus[status] ?? 0) + 1;
    }
  } else {
    const { rows } = await storage.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM tasks
        WHERE project_id = $1 AND deleted_at IS NULL GROUP BY status`,
      [project.id],
    );
    byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const completed = byStatus.completed ?? 0;
  const open = Object.entries(byStatus)
    .filter(([status]) => !closedTaskStatuses.has(status))
    .reduce((a, [, n]) => a + n, 0);
  const base = storage.mode === 'database' ? await withDefaultWorkflow(storage.db, project) : project;
  return { ...base, task_counts: { total, open, completed, by_status: byStatus } };
}
