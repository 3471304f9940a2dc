import { NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { projectColumns, type Project } from '../projects/project';
import { requireDb } from '../storage';
import { closedTaskStatuses } from '../tasks/task';
import { parseId } from '../validation';
import { ensureDefaultWorkspace, findWorkspace } from './commands';
import { workspaceColumns, type Workspace } from './space';

type SpaceDeps = Pick<Deps, 'storage' | 'clock' | 'ids' | 'events'>;

/** Reads first make sure the default exists, so no reader ever sees a world without one. */
async function withDefault<T>(deps: SpaceDeps, read: (db: Db) => Promise<T>): Promise<T> {
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    await ensureDefaultWorkspace(deps, tx);
    return read(tx);
  });
}

/** GET /api/spaces: by sort_order, then age. */
export async function listSpaces(deps: SpaceDeps): Promise<{ spaces: Workspace[] }> {
  return withDefault(deps, async (db) => ({
    spaces: (await db.query<Workspace>(`SELECT ${workspaceColumns} FROM workspaces ORDER BY sort_order, created_at, id`)).rows,
  }));
}

async function requireSpace(db: Db, id: string): Promise<Workspace> {
  const ws = await findWorkspace(db, id);
  if (!ws) throw new NotFoundError(`workspace ${id} not found`);
  return ws;
}

export async function getSpace(deps: SpaceDeps, rawId: unknown): Promise<Workspace> {
  const id = parseId(rawId);
  return withDefault(deps, (db) => requireSpace(db, id));
}

/** GET /api/spaces/:id/projects: the projects assigned to the workspace, oldest first. */
export async function listSpaceProjects(deps: SpaceDeps, rawId: unknown): Promise<{ projects: Project[] }> {
  const id = parseId(rawId);
  return withDefault(deps, async (db) => {
    await requireSpace(db, id);
    const { rows } = await db.query<Project>(`SELECT ${projectColumns} FROM projects WHERE workspace_id = $1 ORDER BY created_at, id`, [
      id,
    ]);
    return { projects: rows };
  });
}

/** GET /api/spaces/:id/stats: project counts by status and task counts (live tasks) of its projects. */
export async function getSpaceStats(deps: SpaceDeps, rawId: unknown) {
  const id = parseId(rawId);
  return withDefault(deps, async (db) => {
    await requireSpace(db, id);
    const [projects, tasks] = await Promise.all([
      db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM projects WHERE workspace_id = $1 GROUP BY status', [
        id,
      ]),
      db.query<{ status: string; n: number }>(
        `SELECT t.status, count(*)::int AS n FROM tasks t JOIN projects p ON p.id = t.project_id
          WHERE p.workspace_id = $1 AND t.deleted_at IS NULL GROUP BY t.status`,
        [id],
      ),
    ]);
    const byStatus = Object.fromEntries(tasks.rows.map((r) => [r.status, r.n]));
    const total = tasks.rows.reduce((a, r) => a + r.n, 0);
    return {
      workspace_id: id,
      projects: {
        total: projects.rows.reduce((a, r) => a + r.n, 0),
        by_status: Object.fromEntries(projects.rows.map((r) => [r.status, r.n])),
      },
      tasks: {
        total,
        open: tasks.rows.filter((r) => !closedTaskStatuses.has(r.status)).reduce((a, r) => a + r.n, 0),
        completed: byStatus.completed ?? 0,
        by_status: byStatus,
      },
    };
  });
}
