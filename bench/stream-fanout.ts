import { spawn } from 'node:child_process';
import http from 'node:http';
import { createParser } from 'eventsource-parser';
import pg from 'pg';
import { benchDatabase, report, rssMb, seconds } from './support';

/**
 * SSE fan-out: BENCH_STREAM_CLIENTS (200) clients on /api/events of a runner process, while
 * another process publishes BENCH_STREAM_RATE (1000) events/s through the outbox for
 * BENCH_SECONDS. Delivery latency (send → frame parsed by a client) p50/p99 and the runner's
 * RSS, next to a bare NOTIFY round trip at the same rate from the same kind of process.
 */
const clients = Number(process.env.BENCH_STREAM_CLIENTS ?? 200);
const rate = Number(process.env.BENCH_STREAM_RATE ?? 1000);
/** Clients that parse every frame for latency; the rest read and discard (all 200 are served alike). */
const sampled = Math.min(clients, Number(process.env.BENCH_STREAM_SAMPLED ?? 20));
/**
 * Events per publishing transaction: 4, as when commits that carried events were serialized
 * (before migration 0900), so that the figure stays comparable across commits; see bench/README.md.
 */
const batch = Number(process.env.BENCH_STREAM_BATCH ?? 4);

const wallNow = () => performance.timeOrigin + performance.now();

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Children still running: a benchmark that fails half-way must not leave runners serving (and holding a database) behind it. */
const running = new Set<ReturnType<typeof spawn>>();
process.once('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

function runChild(
  args: string[],
  env: NodeJS.ProcessEnv,
): { proc: ReturnType<typeof spawn>; output: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  proc.on('exit', () => running.delete(proc));
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return { proc, output: () => out, exited: new Promise((r) => proc.on('exit', (code) => r(code))) };
}

/** The publisher's summary line (bench/stream-publisher.ts). */
interface Published {
  sent: number;
  achievedRate: number;
  commitP50: number;
  commitP99: number;
}

async function publish(url: string, mode: 'outbox' | 'notify'): Promise<Published> {
  const child = runChild(['bench/stream-publisher.ts', url, mode, String(rate), String(seconds), String(batch)], process.env);
  const code = await child.exited;
  const last = child.output().trim().split('\n').pop() ?? '';
  if (code !== 0) throw new Error(`publisher failed: ${child.output()}`);
  return JSON.parse(last) as Published;
}

/** A runner process on the bench database, and its base URL once it listens. */
async function startRunnerProcess(env: NodeJS.ProcessEnv): Promise<{ child: ReturnType<typeof runChild>; base: string }> {
  const child = runChild(['infra/http/main.ts'], env);
  const deadline = Date.now() + 60_000;
  let base: string | undefined;
  while (!base) {
    base = /task server ready at (http:\/\/\S+)/.exec(child.output())?.[1];
    if (!base && (Date.now() > deadline || child.proc.exitCode !== null)) throw new Error(`runner did not start: ${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, base };
}

interface Fanout {
  latencies: number[];
  published: Published;
  /** Events each sampled client got, at least and at most, and repeats of an id any one of them saw. */
  fewest: number;
  most: number;
  repeats: number;
  idleRss: number;
  peakRss: number;
}

/**
 * The clients spread over `runners` in turn (the sampled ones too), one publishing run, and what
 * arrived: latency per frame, and per sampled client the events it got and any id it got twice.
 */
async function fanOut(databaseUrl: string, runners: Array<{ child: ReturnType<typeof runChild>; base: string }>): Promise<Fanout> {
  const latencies: number[] = [];
  const seen = Array.from({ length: sampled }, () => new Set<string>());
  let repeats = 0;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  await Promise.all(
    Array.from(
      { length: clients },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const { base } = runners[i % runners.length]!;
          const req = http.get(`${base}/api/events`, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`client ${i}: ${res.statusCode}`));
            if (i < sampled) {
              const parser = createParser({
                onEvent: (e) => {
                  if (e.event !== 'bench:tick') return;
                  if (e.id !== undefined && seen[i]!.has(e.id)) repeats++;
                  else seen[i]!.add(e.id ?? String(seen[i]!.size));
                  latencies.push(wallNow() - (JSON.parse(e.data) as { t: number }).t);
                },
              });
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => parser.feed(chunk));
            } else {
              res.resume();
            }
            res.on('error', () => undefined);
            resolve();
          });
          req.on('error', reject);
          requests.push(req);
        }),
    ),
  );
  const pids = runners.map((r) => r.child.proc.pid!);
  const rssOf = () => pids.reduce((sum, pid) => sum + rssMb(pid), 0);
  const idleRss = rssOf();
  let peakRss = idleRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf())), 100);
  const published = await publish(databaseUrl, 'outbox');
  // let the tail of the stream arrive (bounded)
  const counts = () => seen.map((s) => s.size);
  for (let i = 0; i < 100 && Math.min(...counts()) < published.sent; i++) await new Promise((r) => setTimeout(r, 20));
  clearInterval(sampler);
  for (const req of requests) req.destroy();
  return { latencies, published, fewest: Math.min(...counts()), most: Math.max(...counts()), repeats, idleRss, peakRss };
}

export async function run(): Promise<void> {
  const database = await benchDatabase();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    PORT: '0',
    LOG_LEVEL: 'ERROR',
    DISPATCHER_INTERVAL_MS: '0',
    CRON_MANAGER_PORT: '0',
  };
  delete env.DASHBOARD_AUTH_TOKEN;
  const first = await startRunnerProcess(env);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(
    `INSERT INTO settings (key, value, source, type) VALUES ('SSE_MAX_CLIENTS', $1, 'config', 'number')
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [JSON.stringify(clients + 10)],
  );

  const one = await fanOut(database.url, [first]);

  // The baseline: LISTEN in this process, NOTIFY from a publisher process at the same rate.
  const bare: number[] = [];
  const listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  listener.on('notification', (n) => bare.push(wallNow() - (JSON.parse(n.payload!) as { t: number }).t));
  await listener.query('LISTEN bench_bare_notify');
  const bareSent = await publish(database.url, 'notify');
  for (let i = 0; i < 100 && bare.length < bareSent.sent; i++) await new Promise((r) => setTimeout(r, 20));
  await listener.end();

  const us = (ms: number) => ms * 1000;
  report(
    `SSE delivery p50 (${clients} clients, ${rate}/s)`,
    us(percentile(one.latencies, 50)),
    us(percentile(bare, 50)),
    'µs',
    `vs bare NOTIFY round trip; of which the publishing transaction (insert + commit) p50 ${(one.published.commitP50 * 1000).toFixed(0)} µs, p99 ${(one.published.commitP99 * 1000).toFixed(0)} µs`,
  );
  report(
    `SSE delivery p99 (${clients} clients, ${rate}/s)`,
    us(percentile(one.latencies, 99)),
    us(percentile(bare, 99)),
    'µs',
    `published ${one.published.sent} at ${one.published.achievedRate.toFixed(0)}/s in transactions of ${batch}, each sampled client got ${one.fewest}; runner RSS ${one.idleRss.toFixed(0)} MB connected, ${one.peakRss.toFixed(0)} MB peak`,
  );

  // Two runners on the one database (the outbox NOTIFY reaches both), the clients split between them.
  const second = await startRunnerProcess(env);
  const two = await fanOut(database.url, [first, second]);
  report(
    `SSE delivery p50, two runners (${clients} clients, ${rate}/s)`,
    us(percentile(two.latencies, 50)),
    us(percentile(bare, 50)),
    'µs',
    `clients split between two runner processes; vs the same bare NOTIFY round trip`,
  );
  report(
    `SSE delivery p99, two runners (${clients} clients, ${rate}/s)`,
    us(percentile(two.latencies, 99)),
    us(percentile(bare, 99)),
    'µs',
    `published ${two.published.sent}; each sampled client got ${two.fewest === two.most ? two.fewest : `${two.fewest}-${two.most}`}, repeats ${two.repeats}; runners' RSS ${two.idleRss.toFixed(0)} MB connected, ${two.peakRss.toFixed(0)} MB peak`,
  );

  await admin.end();
  for (const runner of [first, second]) {
    runner.child.proc.kill('SIGTERM');
    await runner.child.exited;
  }
  await database.close();
}
