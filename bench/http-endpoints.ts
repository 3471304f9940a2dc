import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PgDb } from '../infra/db/pg-db';
import { startRunner } from '../infra/http/runner';
import { projectColumns } from '../core/projects/project';
import { benchAppContext, benchDatabase, report, requestsPerSecond } from './support';

/**
 * GET /api/health and GET /api/projects/:id through the local runner (event conversion, middy
 * stack, auth, logging, the core use case), against a bare node:http server that runs the
 * same SQL on a pool of the same size.
 */
export async function run(): Promise<void> {
  const database = await benchDatabase();
  const app = await benchAppContext(database);
  const runner = await startRunner({ host: '127.0.0.1', port: 0, largeBodyLimit: 1024 });
  const created = await fetch(`${runner.url}/api/projects`, { method: 'POST', body: JSON.stringify({ name: 'bench' }) });
  const { id } = (await created.json()) as { id: string };

  const raw = new PgDb(database.url);
  const baseline = http.createServer(async (req, res) => {
    try {
      if (req.url === '/api/health') {
        await raw.query('SELECT 1');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok' }));
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
