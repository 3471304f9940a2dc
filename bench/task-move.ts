import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { startRunner } from '../infra/http/runner';
import { bareDb, benchAppContext, benchDatabase, connections, report, seconds } from './support';

/**
 * POST /api/tasks/:id/move through the local runner, BENCH_CONNECTIONS clients (20) moving random
 * tasks among BENCH_MOVE_TASKS (1,000) between two statuses: a write with its audit row, state
 * snapshot and event in one transaction. Baseline: a bare node:http server doing the same UPDATE
 * and an audit INSERT in one transaction (no snapshot, no event) on a pool of the same size.
 */
const taskCount = Number(process.env.BENCH_MOVE_TASKS ?? 1_000);
const statuses = ['ready', 'in_progress'];

async function movesPerSecond(base: string, ids: string[]): Promise<{ rps: number; p99: number; errors: number }> {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          n += 1;
          return {
            ...request,
            path: `/api/tasks/${ids[Math.floor(Math.random() * ids.length)]}/move`,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ status: statuses[n % 2] }),
          };
        },
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const app = await benchAppContext(database);
  const runner = await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: 1024 });
  const raw = bareDb(database.url);
  const { rows: project } = await raw.query<{ id: string }>(
    `INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'bench moves') RETURNING id`,
  );
  const { rows } = await raw.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title, status) SELECT gen_random_uuid(), $1, 'move me ' || g, 'ready' FROM generate_series(1, $2) g RETURNING id`,
    [project[0]!.id, taskCount],
  );
  const ids = rows.map((r) => r.id);

  const baseline = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      try {
        const id = req.url!.split('/')[3];
        const { status } = JSON.parse(body) as { status: string };
        const task = await raw.transaction(async (tx) => {
          const { rows: updated } = await tx.query(
            `UPDATE tasks SET status = $2, status_updated_at = now(), updated_at = now() WHERE id = $1 RETURNING *`,
            [id, status],
          );
          await tx.query(
            `INSERT INTO audit_log (actor, action, entity_type, entity_id, new_value) VALUES ('operator', 'status_changed', 'task', $1, $2)`,
            [id, JSON.stringify(updated[0])],
          );
          return updated[0];
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(task));
      } catch {
        res.writeHead(500);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => baseline.listen(0, '127.0.0.1', () => r()));
  const baseUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}`;

  const ours = await movesPerSecond(runner.url, ids);
  const bare = await movesPerSecond(baseUrl, ids);
  report('POST /api/tasks/:id/move', ours.rps, bare.rps, 'req/s', `p99 ${ours.p99} ms vs ${bare.p99} ms, errors ${ours.errors}`);

  await new Promise<void>((r) => baseline.close(() => r()));
  await raw.close();
  await runner.close();
  await app.close();
  await database.close();
}
