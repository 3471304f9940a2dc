import { NotFoundError } from '../errors';
import type { Db } from '../ports';
import { projectColumns, type Project } from '../projects/project';
import { findProject } from '../projects/queries';

/**
 * The project a list or view is about: the one named by `project_id`, else the default project
 * (the oldest active one, else the oldest: the rule of GET /api/projects/default). Undefined
 * when no project exists and none was named.
 */
export async function selectProject(db: Db, projectId: string | undefined): Promise<Project | undefined> {
  if (projectId) {
    const project = await findProject(db, projectId);
    if (!project) throw new NotFoundError(`project ${projectId} not found`);
    return project;
  }
  const { rows } = await db.query<Project>(
    `SELECT ${projectColumns} FROM projects ORDER BY (status = 'active') DESC, created_at, id LIMIT 1`,
  );
  return rows[0];
}

export async function requireProject(db: Db, projectId: string | undefined): Promise<Project> {
  const project = await selectProject(db, projectId);
  if (!project) throw new NotFoundError('no project exists yet; create one with POST /api/projects');
  return project;
}
