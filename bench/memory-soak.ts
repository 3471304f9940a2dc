import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { benchDatabase, report, rssMb } from './support';

/**
 * Memory under a long mixed load: a runner process (`infra/http/main.ts` through tsx, or
 * `dist/server.js` with BENCH_SOAK_SERVER=dist) on a database of its own process (an embedded
 * PostgreSQL, or DATABASE_URL) holding BENCH_SOAK_TASKS (20,000) live tasks, its dispatcher ticking
 * every 15 s, answers BENCH_SOAK_RATE (50) requests/s of reads and writes over seventeen routes (and an unknown path), with
 * four event-stream clients that reconnect every 20 s, for BENCH_SOAK_MINUTES (2); then nothing for
 * BENCH_SOAK_IDLE_SECONDS (60). Its RSS is read from /proc after the warm-up (the first
 * BENCH_SOAK_WARMUP_SECONDS, 30), at the end of the load and after the idle time; the slope is a
 * least-squares fit of the samples taken every 5 s between the first two. Baseline: the warm-up
 * RSS. Flat is a slope under 0.2 MB/min over 30 minutes and an idle RSS within 10% of the warm-up's.
 * With each sample the runner's own figures (fleet_process_memory_bytes) split that RSS into its
 * JavaScript heap and the native memory outside it, each with its slope, so a reader sees which grows.
 */
const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 2);
const rate = Number(process.env.BENCH_SOAK_RATE ?? 50);
const idleSeconds = Number(process.env.BENCH_SOAK_IDLE_SECONDS ?? 60);
/** Live tasks in the database before the load starts: work that reads every row shows with a table of a realistic size. */
const seededTasks = Number(process.env.BENCH_SOAK_TASKS ?? 20_000);
/**
 * Tasks of the soak's own project, whose board the load reads: seeded before the load, then held
 * there by deleting the oldest as new ones are created, so the answers weigh the same at the end
 * as at the start and a rising RSS is the server's, not a board that grew with every write.
 * BENCH_SOAK_LIVE_TASKS=0 never deletes (the project gains ~6 tasks a second, its board ~2 KB a second).
 */
const liveTasks = Number(process.env.BENCH_SOAK_LIVE_TASKS ?? 1_000);
const warmupSeconds = Math.min(Number(process.env.BENCH_SOAK_WARMUP_SECONDS ?? 30), (minutes * 60) / 2);
/** Requests in flight at most: a server that slows down is measured at the rate it keeps, not buried. */
const maxInFlight = 64;
const sampleEveryMs = 5_000;
/** Event-stream clients held open through the load, each reconnecting (with Last-Event-ID) every streamReconnectMs. */
const streamClients = 4;
const streamReconnectMs = 20_000;
/**
 * BENCH_SOAK_HEAP_SNAPSHOTS=<dir>: the runner writes a heap snapshot there after the warm-up and at
 * the end of the load, to compare object counts by constructor. Off by default: writing one stalls
 * the runner for seconds and leaves its RSS higher (the allocator keeps what the writer used), so
 * the RSS figures of such a run are not the soak's.
 */
const heapSnapshotDir = process.env.BENCH_SOAK_HEAP_SNAPSHOTS;
/** The runner's glibc malloc arenas (MALLOC_ARENA_MAX), 2 as deployed. */
const mallocArenaMax = process.env.BENCH_SOAK_MALLOC_ARENA_MAX ?? '2';
/** BENCH_SOAK_SAMPLES=<file>: every sample as a CSV line (minute, RSS, heap total, heap used, external), to plot the load's rhythm. */
const samplesFile = process.env.BENCH_SOAK_SAMPLES;

let runner: ChildProcess | undefined;
process.once('exit', () => runner?.kill('SIGKILL'));

/** The runner process and its base URL once it prints its ready line; only the output's tail is kept. */
async function startRunnerProcess(databaseUrl: string, dataDir: string): Promise<{ proc: ChildProcess; base: string }> {
  const entry = process.env.BENCH_SOAK_SERVER === 'dist' ? ['dist/server.js'] : ['--import', 'tsx', 'infra/http/main.ts'];
  if (heapSnapshotDir) entry.unshift('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.resolve(heapSnapshotDir)}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    DISPATCHER_INTERVAL_MS: '15000',
    CRON_MANAGER_PORT: '0',
    LOG_LEVEL: 'ERROR',
    // a runtime whose every wake succeeds at once: the dispatcher's wakes cost the runner nothing of its own
    RUNTIME_CLI: 'true',
    // as the Dockerfile and the systemd unit run it; BENCH_SOAK_MALLOC_ARENA_MAX=unset measures glibc's default
    MALLOC_ARENA_MAX: mallocArenaMax,
  };
  if (mallocArenaMax === 'unset') delete env.MALLOC_ARENA_MAX;
  delete env.DASHBOARD_AUTH_TOKEN;
  const proc = spawn(process.execPath, entry, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  runner = proc;
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-8_192));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const base = /task server ready at (http:\/\/\S+)/.exec(tail)?.[1];
    if (base) return { proc, base };
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`runner did not start: ${tail}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });

function call(base: string, method: string, target: string, body?: unknown): Promise<{ status: number; json: unknown; bytes: number }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${base}${target}`,
      { method, agent, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = chunks.reduce((sum, c) => sum + c.byteLength, 0);
          const text = Buffer.concat(chunks).toString();
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json, bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The bench's data: tasks and runs it made, kept to a bounded window so the bench's own memory stays flat. */
interface Seeds {
  projectId: string;
  taskIds: string[];
  runIds: string[];
  workflowType: string;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const remember = (ids: string[], id: unknown) => {
  if (typeof id !== 'string') return;
  ids.push(id);
  if (ids.length > Math.max(2_000, liveTasks)) ids.splice(0, ids.length - Math.max(2_000, liveTasks));
};
const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

/**
 * One request of the mix, with its weight: mostly reads of tasks, lists and views, a quarter
 * writes (new tasks, edits, moves, runs the dispatcher picks up), with ids and search words that
 * keep changing, as a dashboard and a fleet of agents send them.
 */
const mix: Array<[number, string, (base: string, s: Seeds) => Promise<{ status: number; json: unknown; bytes: number }>]> = [
  [14, 'GET /api/tasks/:id', (base, s) => call(base, 'GET', `/api/tasks/${pick(s.taskIds)}`)],
  [3, 'GET /api/tasks', (base) => call(base, 'GET', '/api/tasks')],
  [5, 'GET /api/tasks/:id/history', (base, s) => call(base, 'GET', `/api/tasks/${pick(s.taskIds)}/history`)],
  [6, 'GET /api/views/board', (base, s) => call(base, 'GET', `/api/views/board?project_id=${s.projectId}`)],
  [5, 'GET /api/projects', (base) => call(base, 'GET', '/api/projects')],
  [5, 'GET /api/history/:taskId', (base, s) => call(base, 'GET', `/api/history/${pick(s.taskIds)}`)],
  [5, 'GET /api/audit?q=', (base) => call(base, 'GET', `/api/audit?q=${pick(words)}${Math.floor(Math.random() * 1000)}&limit=20`)],
  [5, 'GET /api/workflow-runs', (base) => call(base, 'GET', '/api/workflow-runs?limit=20')],
  [4, 'GET /api/workflow-runs/:id', (base, s) => call(base, 'GET', `/api/workflow-runs/${pick(s.runIds)}`)],
  [4, 'GET /api/stats', (base) => call(base, 'GET', '/api/stats')],
  [3, 'GET /api/health', (base) => call(base, 'GET', '/api/health')],
  [2, 'GET /api/metrics', (base) => call(base, 'GET', '/api/metrics')],
  [2, 'GET (unknown route)', (base) => call(base, 'GET', '/api/nothing-here')],
  [
    6,
    'POST /api/tasks',
    async (base, s) => {
      const res = await call(base, 'POST', '/api/tasks', {
        project_id: s.projectId,
        title: `${pick(words)} ${Date.now()}`,
        status: 'ready',
        metadata: { n: Math.random() },
      });
      remember(s.taskIds, (res.json as { id?: unknown })?.id);
      return res;
    },
  ],
  [
    8,
    'PATCH /api/tasks/:id',
    (base, s) => call(base, 'PATCH', `/api/tasks/${pick(s.taskIds)}`, { title: `${pick(words)} ${Math.floor(Math.random() * 1e6)}` }),
  ],
  [
    8,
    'POST /api/tasks/:id/move',
    (base, s) => call(base, 'POST', `/api/tasks/${pick(s.taskIds)}/move`, { status: pick(['ready', 'in_progress', 'review']) }),
  ],
  // as many deletions as creations: the project's live tasks stay at liveTasks (the oldest go first)
  [
    liveTasks > 0 ? 6 : 0,
    'DELETE /api/tasks/:id',
    (base, s) =>
      s.taskIds.length > liveTasks
        ? call(base, 'DELETE', `/api/tasks/${s.taskIds.shift()}`)
        : call(base, 'GET', `/api/tasks/${s.taskIds[0]}`),
  ],
  [
    5,
    'POST /api/workflow-runs',
    async (base, s) => {
      const res = await call(base, 'POST', '/api/workflow-runs', { workflow_type: s.workflowType, input_payload: { topic: pick(words) } });
      remember(s.runIds, (res.json as { id?: unknown })?.id);
      return res;
    },
  ],
];
const totalWeight = mix.reduce((sum, [w]) => sum + w, 0);
function pickRequest(): (typeof mix)[number] {
  let n = Math.random() * totalWeight;
  for (const entry of mix) {
    if ((n -= entry[0]) < 0) return entry;
  }
  return mix[0]!;
}

/**
 * An event-stream client that reads and discards, reconnecting after the last id it saw every
 * streamReconnectMs, as a dashboard tab does when it is reloaded; until stop() is called.
 */
function streamClient(base: string): { stop(): void; received(): number } {
  let stopped = false;
  let lastId: string | undefined;
  let received = 0;
  let req: http.ClientRequest | undefined;
  const connect = () => {
    if (stopped) return;
    req = http.get(
      `${base}/api/events`,
      { headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (const match of chunk.matchAll(/^id: (\d+)$/gm)) {
            lastId = match[1];
            received += 1;
          }
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', () => undefined);
    const current = req;
    setTimeout(() => {
      current.destroy();
      connect();
    }, streamReconnectMs);
  };
  connect();
  return {
    stop() {
      stopped = true;
      req?.destroy();
    },
    received: () => received,
  };
}

async function seed(base: string): Promise<Seeds> {
  const must = async (method: string, target: string, body: unknown) => {
    const res = await call(base, method, target, body);
    if (res.status >= 300) throw new Error(`${method} ${target}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json as { id: string };
  };
  const workflowType = 'soak-flow';
  await must('POST', '/api/workflow-templates', { name: workflowType, steps: ['a', 'b'] });
  await must('PUT', `/api/workflow-routing/${workflowType}`, { agent_id: 'soak-agent' });
  const projectId = (await must('POST', '/api/projects', { name: 'soak' })).id;
  const seeds: Seeds = { projectId, taskIds: [], runIds: [], workflowType };
  for (let i = 0; i < 50; i++)
    remember(seeds.taskIds, (await must('POST', '/api/tasks', { project_id: projectId, title: `seed ${i}`, status: 'ready' })).id);
  remember(seeds.runIds, (await must('POST', '/api/workflow-runs', { workflow_type: workflowType })).id);
  return seeds;
}

/** `count` tasks of one project in one set-based INSERT (statuses spread over the board's first columns); their ids, oldest first. */
async function insertTasks(
  client: pg.Client,
  projectId: string,
  count: number,
  title: string,
  description: string | null,
): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title, status, priority, description)
     SELECT gen_random_uuid(), $1, $3 || g, (ARRAY['backlog', 'ready', 'in_progress', 'review'])[1 + g % 4], 'medium', $4
       FROM generate_series(1, $2) g RETURNING id`,
    [projectId, count, title, description],
  );
  return rows.map((r) => r.id);
}

/** Runs `work` on a connection of its own to the bench's database. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The soak project's tasks up to liveTasks, written set-based; their ids join the ones the load picks from, oldest first. */
async function seedLiveTasks(url: string, seeds: Seeds): Promise<void> {
  const missing = liveTasks - seeds.taskIds.length;
  if (missing <= 0) return;
  seeds.taskIds.unshift(...(await withClient(url, (client) => insertTasks(client, seeds.projectId, missing, 'live task ', ''))));
}

/** BENCH_SOAK_TASKS live tasks in one more project, written set-based once the runner has migrated the database. */
async function seedTasks(url: string): Promise<void> {
  await withClient(url, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'soak seeded') RETURNING id`,
    );
    await insertTasks(client, rows[0]!.id, seededTasks, 'seeded task ', 'words '.repeat(40));
    await client.query('ANALYZE tasks');
  });
}

export async function run(): Promise<void> {
  // the database in a process of its own (as the runner's embedded one would be), so that the runner's RSS is its own
  const database = await benchDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-soak-'));
  try {
    const { proc, base } = await startRunnerProcess(database.url, dataDir);
    const pid = proc.pid!;
    console.error(
      `memory soak: runner pid ${pid} at ${base}, ${seededTasks} tasks seeded, ${minutes} min at ${rate} req/s, then ${idleSeconds} s idle, MALLOC_ARENA_MAX ${mallocArenaMax}`,
    );
    await seedTasks(database.url);
    const seeds = await seed(base);
    await seedLiveTasks(database.url, seeds);
    const streams = Array.from({ length: streamClients }, () => streamClient(base));

    let sent = 0;
    let failed = 0;
    // requests that got no answer, by the client's error code and route (a reset of a reused keep-alive socket the server was closing reads ECONNRESET)
    const failures = new Map<string, number>();
    let inFlight = 0;
    let skipped = 0;
    const statuses = new Map<number, number>();
    // what the answers weigh, by route: in the first minute after the warm-up and in the load's last minute
    const answerBytes = new Map<string, { first: [number, number]; last: [number, number] }>();
    const weigh = (route: string, bytes: number) => {
      const at = performance.now() - started;
      const window =
        at >= warmupSeconds * 1000 && at < warmupSeconds * 1000 + 60_000
          ? 'first'
          : at >= loadMs - 60_000 && at < loadMs
            ? 'last'
            : undefined;
      if (!window) return;
      const entry = answerBytes.get(route) ?? { first: [0, 0], last: [0, 0] };
      entry[window][0] += 1;
      entry[window][1] += bytes;
      answerBytes.set(route, entry);
    };
    const serverErrors = new Map<string, number>();
    const started = performance.now();
    const loadMs = minutes * 60_000;
    const samples: Array<{ minute: number; mb: number }> = [];
    const heapSamples: Array<{ minute: number; memory: HeapFigures }> = [];
    const heapReads: Array<Promise<void>> = [];
    let warmupRss = Number.NaN;
    let nextSample = warmupSeconds * 1000;

    // open loop: each 20 ms the requests due by now go out, up to maxInFlight at once
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const elapsed = performance.now() - started;
        if (elapsed >= nextSample) {
          const mb = rssMb(pid);
          if (Number.isNaN(warmupRss)) {
            warmupRss = mb;
            if (heapSnapshotDir) proc.kill('SIGUSR2');
          }
          samples.push({ minute: elapsed / 60_000, mb });
          heapReads.push(
            heapFigures(base).then(
              (memory) => void (memory && heapSamples.push({ minute: elapsed / 60_000, memory })),
              () => undefined,
            ),
          );
          nextSample += sampleEveryMs;
        }
        if (elapsed >= loadMs) {
          clearInterval(timer);
          resolve();
          return;
        }
        const due = Math.floor((elapsed / 1000) * rate) - sent - skipped;
        for (let i = 0; i < due; i++) {
          if (inFlight >= maxInFlight) {
            skipped += 1;
            continue;
          }
          sent += 1;
          inFlight += 1;
          const [, route, send] = pickRequest();
          send(base, seeds)
            .then((res) => {
              statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
              weigh(route, res.bytes);
              if (res.status >= 500) serverErrors.set(route, (serverErrors.get(route) ?? 0) + 1);
            })
            .catch((error: NodeJS.ErrnoException) => {
              failed += 1;
              const key = `${error.code ?? error.message} ${route}`;
              failures.set(key, (failures.get(key) ?? 0) + 1);
            })
            .finally(() => (inFlight -= 1));
        }
      }, 20);
    });
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    for (const stream of streams) stream.stop();
    const endRss = rssMb(pid);
    samples.push({ minute: (performance.now() - started) / 60_000, mb: endRss });
    await Promise.all(heapReads);
    heapSamples.sort((a, b) => a.minute - b.minute);
    const endHeap = await heapFigures(base);
    if (heapSnapshotDir) {
      proc.kill('SIGUSR2');
      console.error(
        `memory soak: heap snapshots of the warm-up and of the end in ${path.resolve(heapSnapshotDir)}; the RSS figures of this run include their writing`,
      );
    }
    agent.destroy();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleRss = rssMb(pid);
    const idleHeap = await heapFigures(base);

    console.error(
      `memory soak: answers by status ${JSON.stringify(Object.fromEntries(statuses))}; 5xx by route ${JSON.stringify(Object.fromEntries(serverErrors))}; no answer ${JSON.stringify(Object.fromEntries(failures))}; stream events received ${streams.map((c) => c.received()).join(', ')}`,
    );
    const meanKb = ([n, bytes]: [number, number]) => (n ? (bytes / n / 1024).toFixed(1) : '-');
    console.error(
      `memory soak: mean answer by route, first minute after warm-up -> last minute (KB): ${[...answerBytes]
        .map(([route, { first, last }]) => `${route} ${meanKb(first)} -> ${meanKb(last)}`)
        .join(
          '; ',
        )}; the soak project's live tasks ${liveTasks > 0 ? `held at ${liveTasks}` : `not bounded (${seeds.taskIds.length} remembered)`}`,
    );
    const slope = leastSquaresSlope(samples);
    const errors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0) + failed;
    const achieved = sent / (loadMs / 1000);
    const label = `${minutes} min at ${rate} req/s`;
    report(
      `soak RSS at end (${label})`,
      endRss,
      warmupRss,
      'MB',
      `slope ${slope.toFixed(2)} MB/min after ${warmupSeconds} s warm-up; ${sent} requests (${achieved.toFixed(0)}/s), ${skipped} skipped at ${maxInFlight} in flight, 5xx or failed ${errors}`,
    );
    report(
      `soak RSS after ${idleSeconds} s idle`,
      idleRss,
      warmupRss,
      'MB',
      `flat: slope < 0.2 MB/min over 30 min, idle within 10% of warm-up`,
    );
    const warmupHeap = heapSamples[0]?.memory;
    if (warmupHeap && endHeap && idleHeap) {
      const slopeOf = (figure: (m: HeapFigures) => number) =>
        leastSquaresSlope(heapSamples.map((h) => ({ minute: h.minute, mb: figure(h.memory) })));
      const outside = (m: HeapFigures) => m.rss - m.heapTotal;
      const lowestUsed = (from: number, to: number) =>
        Math.min(...heapSamples.filter((h) => h.minute >= from && h.minute < to).map((h) => h.memory.heapUsed));
      const span = heapSamples[heapSamples.length - 1]!.minute - heapSamples[0]!.minute;
      const firstFifth = heapSamples[0]!.minute + span / 5;
      report(
        `soak JS heap at end (${label})`,
        endHeap.heapTotal,
        warmupHeap.heapTotal,
        'MB',
        `slope ${slopeOf((m) => m.heapTotal).toFixed(2)} MB/min; heap used at its lows ${lowestUsed(0, firstFifth).toFixed(0)} MB in the first fifth, ${lowestUsed(span - span / 5 + heapSamples[0]!.minute, Infinity).toFixed(0)} MB in the last; external ${endHeap.external.toFixed(0)} MB (array buffers ${endHeap.arrayBuffers.toFixed(0)})`,
      );
      report(
        `soak RSS outside the JS heap at end`,
        outside(endHeap),
        outside(warmupHeap),
        'MB',
        `slope ${slopeOf(outside).toFixed(2)} MB/min; after idle ${outside(idleHeap).toFixed(0)} MB (heap total ${idleHeap.heapTotal.toFixed(0)} MB)`,
      );
    }

    if (samplesFile) {
      const rssAt = new Map(samples.map((s) => [s.minute.toFixed(3), s.mb]));
      const lines = heapSamples.map(({ minute, memory: m }) =>
        [
          minute.toFixed(3),
          (rssAt.get(minute.toFixed(3)) ?? m.rss).toFixed(1),
          m.heapTotal.toFixed(1),
          m.heapUsed.toFixed(1),
          m.external.toFixed(1),
        ].join(','),
      );
      await writeFile(samplesFile, `minute,rss_mb,heap_total_mb,heap_used_mb,external_mb\n${lines.join('\n')}\n`);
    }
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r(undefined) : proc.once('exit', r)));
  } finally {
    runner?.kill('SIGKILL');
    runner = undefined;
    await rm(dataDir, { recursive: true, force: true });
    await database.close();
  }
}

/** What the runner says of its memory (GET /api/metrics, fleet_process_memory_bytes), in MB. */
interface HeapFigures {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** The runner's memory by kind, read through its metrics on a connection of its own (the load's agent may be gone). */
async function heapFigures(base: string): Promise<HeapFigures | undefined> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`${base}/api/metrics`, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      })
      .on('error', reject);
  });
  const kind = (k: string) => Number(new RegExp(`^fleet_process_memory_bytes\\{kind="${k}"\\} (\\S+)$`, 'm').exec(text)?.[1]) / 1024 / 1024;
  const figures = {
    rss: kind('rss'),
    heapTotal: kind('heap_total'),
    heapUsed: kind('heap_used'),
    external: kind('external'),
    arrayBuffers: kind('array_buffers'),
  };
  return Object.values(figures).some(Number.isNaN) ? undefined : figures;
}

/** MB per minute of a least-squares line through the samples. */
function leastSquaresSlope(samples: ReadonlyArray<{ minute: number; mb: number }>): number {
  if (samples.length < 2) return Number.NaN;
  const n = samples.length;
  const mx = samples.reduce((s, p) => s + p.minute, 0) / n;
  const my = samples.reduce((s, p) => s + p.mb, 0) / n;
  const num = samples.reduce((s, p) => s + (p.minute - mx) * (p.mb - my), 0);
  const den = samples.reduce((s, p) => s + (p.minute - mx) ** 2, 0);
  return den > 0 ? num / den : Number.NaN;
}
