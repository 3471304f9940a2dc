import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PgDb } from '../infra/db/pg-db';
import { startRunner } from '../infra/http/runner';
import { projectColumns } from '../core/projects/project';
import { bareDb, benchAppContext, benchDatabase, report, requestsPerSecond } from './support';

/**
 * GET /api/health, GET /api/projects/:id and GET /api/tasks/:id through the local runner (event
 * conversion, middy stack, auth, logging, the core use case), against a bare node:http server that
 * runs the same SQL on a pool of the same size. For the task, the bare server runs one query that
 * builds the same JSON in PostgreSQL (the task, its dependencies and subtasks, its audit count)
 * among 5,000 tasks.
 */
export async function run(): Promise<void> {
  const database = await benchDatabase();
  const app = await benchAppContext(database);
  const runner = await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: 1024 });
  const created = await fetch(`${runner.url}/api/projects`, { method: 'POST', body: JSON.stringify({ name: 'bench' }) });
  const { id } = (await created.json()) as { id: string };
  const taskId = await seedTasks(database.url, id);

  const raw = bareDb(database.url);
  const baseline = http.createServer(async (req, res) => {
    try {
      if (req.url === '/api/health') {
        await raw.query('SELECT 1');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok' }));
      } else if (req.url?.startsWith('/api/tasks/')) {
        const { rows } = await raw.query<{ body: string }>(bareTaskSql, [taskId]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(rows[0]!.body);
      } else {
        const { rows } = await raw.query(`SELECT ${projectColumns} FROM projects WHERE id = $1`, [id]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(rows[0]));
      }
    } catch {
      res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((r) => baseline.listen(0, '127.0.0.1', () => r()));
  const baseUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}`;

  for (const [name, target] of [
    ['GET /api/health', '/api/health'],
    ['GET /api/projects/:id', `/api/projects/${id}`],
    ['GET /api/tasks/:id', `/api/tasks/${taskId}`],
  ] as const) {
    const ours = await requestsPerSecond(`${runner.url}${target}`);
    const bare = await requestsPerSecond(`${baseUrl}${target}`);
    report(name, ours.rps, bare.rps, 'req/s', `p99 ${ours.p99} ms vs ${bare.p99} ms, errors ${ours.errors}`);
  }

  await new Promise<void>((r) => baseline.close(() => r()));
  await raw.close();
  await runner.close();
  await app.close();
  await database.close();
}

/** 5,000 tasks of the project; the one read has two dependencies and two subtasks. Answers its id. */
async function seedTasks(url: string, projectId: string): Promise<string> {
  const db = new PgDb(url);
  try {
    await db.query(
      `INSERT INTO tasks (id, project_id, title, status, priority) SELECT gen_random_uuid(), $1, 'task ' || n, 'ready', 'medium' FROM generate_series(1, 5000) AS n`,
      [projectId],
    );
    const { rows } = await db.query<{ id: string }>('SELECT id FROM tasks WHERE project_id = $1 ORDER BY id LIMIT 5', [projectId]);
    const [task, dep1, dep2, sub1, sub2] = rows.map((r) => r.id);
    await db.query('UPDATE tasks SET dependency_ids = ARRAY[$2, $3]::uuid[] WHERE id = $1', [task, dep1, dep2]);
    await db.query('UPDATE tasks SET parent_task_id = $1 WHERE id = ANY(ARRAY[$2, $3]::uuid[])', [task, sub1, sub2]);
    // statistics as autovacuum would leave them: without them the planner scans every task for the dependencies
    await db.query('ANALYZE tasks');
    return task!;
  } finally {
    await db.close();
  }
}

/** The floor: one statement that answers the task detail's JSON text itself (without the row's stored listing text, migration 1050, which the answer does not carry). */
const bareTaskSql = `SELECT json_build_object(
    'task', to_jsonb(t) - 'json_segments',
    'dependencies', COALESCE((SELECT json_agg(json_build_object('id', d.id, 'title', d.title, 'status', d.status)) FROM tasks d WHERE d.id = ANY(t.dependency_ids)), '[]'),
    'subtasks', COALESCE((SELECT json_agg(json_build_object('id', s.id, 'title', s.title, 'status', s.status)) FROM tasks s WHERE s.parent_task_id = t.id), '[]'),
    'entries', (SELECT count(*) FROM audit_log a WHERE a.task_id = t.id))::text AS body
  FROM tasks t WHERE t.id = $1`;
