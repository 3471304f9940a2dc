import pg from 'pg';
import { tick } from '../core/workflows/dispatcher';
import { migrate } from '../infra/db/migrate';
import { PgDb } from '../infra/db/pg-db';
import { benchDatabase, benchDeps } from './support';

const times = new Map<string, { n: number; ms: number }>();
const orig = pg.Client.prototype.query as any;
(pg.Client.prototype as any).query = function (this: any, ...args: any[]) {
  const text = typeof args[0] === 'string' ? args[0] : args[0]?.text ?? '?';
  const key = text.replace(/\s+/g, ' ').slice(0, 90);
  const t = performance.now();
  const r = orig.apply(this, args);
  if (r && typeof r.then === 'function') {
    return r.then((v: any) => {
      const e = times.get(key) ?? { n: 0, ms: 0 };
      e.n++; e.ms += performance.now() - t; times.set(key, e);
      return v;
    });
  }
  return r;
};
const database = await benchDatabase();
const db = new PgDb(database.url);
await migrate(db);
const client = new pg.Client({ connectionString: database.url });
await client.connect();
await client.query(`INSERT INTO workflow_templates (name, steps) VALUES ('bench-flow', '["a","b","c"]') ON CONFLICT DO NOTHING`);
await client.query(`INSERT INTO workflow_agent_routing (workflow_type, agent_id) VALUES ('bench-flow', 'bench-agent') ON CONFLICT DO NOTHING`);
await client.query(`INSERT INTO workflow_runs (id, workflow_type, status, created_at) SELECT gen_random_uuid(), 'bench-flow', 'queued', now() - make_interval(secs => g) FROM generate_series(1, 10000) g`);
await client.query(`INSERT INTO workflow_runs (id, workflow_type, status, dispatch_attempts, dispatched_at, target_agent_id, created_at) SELECT gen_random_uuid(), 'bench-flow', 'dispatched', 1, now() - interval '6 minutes', 'bench-agent', now() FROM generate_series(1, 1000)`);
await client.query('ANALYZE workflow_runs');
times.clear();
const deps = benchDeps(db, database.dataDir);
const t = performance.now();
await tick(deps, { source: 'bench' });
console.log('total', performance.now() - t);
for (const [k, v] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) console.log(v.ms.toFixed(0).padStart(6), String(v.n).padStart(5), k);
await client.end(); await db.close(); await database.close();
process.exit(0);
