import * as z from 'zod';
import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, ExecutionFailedError, NotFoundError, RuntimeCallError, ValidationError } from '../errors';
import type { Deps, RuntimeDocument } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { runtimeCalls, type ScheduledJobRequest } from './calls';
import { fileNameIdSchema, jobIdSchema, parseJobId } from './ids';
import { requireKnownJob } from './known-ids';
import { arrayField, fieldsOf, isoFromEpochMs, isRecord, stringOrNull } from './payload';

/** A scheduled job as spec 01 lists it; `legacy` tells the runtime's jobs from the definition files. */
export interface ScheduledJob {
  id: string;
  name: string;
  description: string;
  schedule: string;
  enabled: boolean;
  status: 'success' | 'failed' | 'unknown';
  lastRun: string | null;
  nextRun: string | null;
  agentId: string | null;
  model: string | null;
  legacy: boolean;
  _raw: unknown;
}

/** Scheduler lastStatus → job status (spec 01 Scheduled job). Anything else is unknown. */
const jobStatusByLastStatus: Readonly<Record<string, ScheduledJob['status']>> = { ok: 'success', error: 'failed' };

/**
 * Run entry status → run history status. `skipped` is the released runtime's run that was due but
 * did not start (an unresolved owner, a run already in flight): neither a success nor a failure.
 * Anything not listed counts as failed (a run that did not say ok).
 */
const runStatusByEntryStatus: Readonly<Record<string, 'success' | 'failed' | 'running' | 'skipped'>> = {
  ok: 'success',
  success: 'success',
  error: 'failed',
  failed: 'failed',
  running: 'running',
  skipped: 'skipped',
};

const UNITS: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** 5400000 → "1h30m"; 1500 → "1500ms". */
export function readableDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return `${ms}ms`;
  if (ms % 1000 !== 0) return `${ms}ms`;
  let rest = ms;
  let out = '';
  for (const [size, unit] of UNITS) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out;
}

/** The scheduler's schedule object as one readable string. */
export function readableSchedule(schedule: unknown): string {
  if (!isRecord(schedule)) return 'unknown';
  if (schedule.kind === 'cron' && typeof schedule.expr === 'string') {
    return typeof schedule.tz === 'string' && schedule.tz ? `${schedule.expr} (${schedule.tz})` : schedule.expr;
  }
  if (schedule.kind === 'every' && typeof schedule.everyMs === 'number') return `every ${readableDuration(schedule.everyMs)}`;
  if (schedule.kind === 'at') {
    const at = isoFromEpochMs(schedule.atMs);
    if (at) return `at ${at}`;
  }
  return 'unknown';
}

/** Spec 01 Scheduled job normalization; undefined for a record without a usable id (it cannot be controlled). */
export function normalizeSchedulerRecord(record: unknown): ScheduledJob | undefined {
  if (!isRecord(record) || typeof record.id !== 'string' || !record.id) return undefined;
  const state = isRecord(record.state) ? record.state : {};
  const payload = isRecord(record.payload) ? record.payload : {};
  return {
    id: record.id,
    name: stringOrNull(record.name) ?? record.id,
    description: typeof record.description === 'string' ? record.description : '',
    schedule: readableSchedule(record.schedule),
    enabled: record.enabled === true,
    status: jobStatusByLastStatus[lastRunStatus(record) ?? ''] || 'unknown',
    lastRun: isoFromEpochMs(state.lastRunAtMs),
    nextRun: isoFromEpochMs(state.nextRunAtMs),
    // The released runtime leaves agentId out of jobs that run as the default agent and names it in effectiveAgentId.
    agentId: stringOrNull(record.agentId) ?? stringOrNull(record.effectiveAgentId),
    model: stringOrNull(payload.model),
    legacy: false,
    _raw: record,
  };
}

/**
 * A run history entry: {id, status, startedAt, finishedAt, sessionKey}, with the entry itself under
 * _raw. The contract's entry is `{id, ts (start), status}`; the released runtime's is
 * `{runId, runAtMs (start), ts (finish), status, sessionKey?}`: with runAtMs present, ts is the finish.
 */
export function normalizeRunEntry(entry: unknown, jobId: string) {
  const e = isRecord(entry) ? entry : {};
  const released = e.runAtMs !== undefined;
  const startMs = released ? e.runAtMs : e.ts;
  const id = stringOrNull(e.id) ?? stringOrNull(e.runId) ?? `${jobId}@${typeof startMs === 'number' ? startMs : 'unknown'}`;
  return {
    id,
    status: (typeof e.status === 'string' && runStatusByEntryStatus[e.status]) || 'failed',
    startedAt: isoFromEpochMs(startMs),
    finishedAt: released ? isoFromEpochMs(e.ts) : null,
    sessionKey: stringOrNull(e.sessionKey),
    _raw: entry,
  };
}

/** The scheduler's last run status: `state.lastStatus` in the contract, `state.lastRunStatus` in the released runtime. */
export function lastRunStatus(record: Record<string, unknown>): string | undefined {
  const state = isRecord(record.state) ? record.state : {};
  const status = state.lastStatus ?? state.lastRunStatus;
  return typeof status === 'string' ? status : undefined;
}

const cronField = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z*/,?#LW-]{1,64}$/, 'must be a cron field such as *, 5, */10, 1-5 or MON')
  .default('*');

const legacyFields = {
  id: jobIdSchema,
  description: z.string().max(2000).default(''),
  minute: cronField,
  hour: cronField,
  dom: cronField,
  month: cronField,
  dow: cronField,
};

/** POST /api/cron/jobs: a legacy job definition (spec 01). */
export const legacyJobSchema = z.strictObject({
  ...legacyFields,
  command: z.string().trim().min(1, 'must not be empty').max(4000, 'at most 4000 characters'),
});

/**
 * POST /api/cron/jobs as the released runtime's scheduler takes it: spec 01's definition, whose
 * `command` may instead be an agent turn's `message` (to `agentId`, else the runtime's default
 * agent), with the cron line's time zone and whether the job starts enabled. Those fields mean
 * nothing to a legacy definition file, which refuses them (400).
 */
export const scheduledJobSchema = z
  .strictObject({
    ...legacyFields,
    command: z.string().trim().min(1, 'must not be empty').max(4000, 'at most 4000 characters').optional(),
    message: z.string().trim().min(1, 'must not be empty').max(10_000, 'at most 10000 characters').optional(),
    agentId: fileNameIdSchema.optional(),
    tz: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/, 'must be an IANA time zone such as UTC or Europe/Paris')
      .max(64)
      .optional(),
    enabled: z.boolean({ message: 'must be true or false' }).default(true),
  })
  .superRefine((job, ctx) => {
    if ((job.command === undefined) === (job.message === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [job.command === undefined ? 'command' : 'message'],
        message: 'give either command (a shell command) or message (an agent turn), not both',
      });
    }
    if (job.agentId !== undefined && job.message === undefined)
      ctx.addIssue({ code: 'custom', path: ['agentId'], message: 'names the agent of a message job; a command job runs on the gateway' });
  });
type ScheduledJobInput = z.infer<typeof scheduledJobSchema>;

/**
 * Whether the runtime's `cron list` answer is the released scheduler's: its gateway pages the list
 * and stamps it (`snapshotRevision`, `hasMore`), which the contract's `{jobs}` never carries. Only
 * that scheduler runs jobs made with `cron add`; the contract's runtime runs the legacy files.
 */
export function isReleasedSchedulerList(doc: RuntimeDocument): boolean {
  const fields = fieldsOf(doc);
  return typeof fields.snapshotRevision === 'string' || typeof fields.hasMore === 'boolean';
}

function legacyJob(id: string, definition: unknown): ScheduledJob & { command: string | null } {
  const d = isRecord(definition) ? definition : {};
  const field = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : '*');
  return {
    id,
    name: id,
    description: typeof d.description === 'string' ? d.description : '',
    schedule: ['minute', 'hour', 'dom', 'month', 'dow'].map(field).join(' '),
    enabled: true,
    status: 'unknown',
    lastRun: null,
    nextRun: null,
    agentId: null,
    model: null,
    legacy: true,
    command: typeof d.command === 'string' ? d.command : null,
    _raw: definition,
  };
}

/**
 * GET /api/cron/jobs: the runtime's jobs, then the legacy definition files. A runtime failure does
 * not hide the legacy jobs: the list comes back with `runtime: {ok: false, failure, error}`.
 */
export async function listScheduledJobs(deps: Pick<Deps, 'runtime' | 'legacyJobs'>) {
  const [runtimeSide, legacySide] = await Promise.all([
    deps.runtime.run(runtimeCalls.cronList()).then(
      (doc) => ({ ok: true as const, records: arrayField(doc, 'jobs', 'cron list') }),
      (err: unknown) => {
        if (err instanceof RuntimeCallError) return { ok: false as const, failure: err.failure, error: err.message };
        throw err;
      },
    ),
    deps.legacyJobs.list(),
  ]);
  const runtimeJobs = runtimeSide.ok ? runtimeSide.records.map(normalizeSchedulerRecord).filter((j) => j !== undefined) : [];
  const jobs = [...runtimeJobs, ...legacySide.jobs.map((f) => legacyJob(f.id, f.definition))];
  return {
    jobs,
    runtime: runtimeSide.ok ? { ok: true } : { ok: false, failure: runtimeSide.failure, error: runtimeSide.error },
    ...(legacySide.unreadable.length ? { unreadableLegacyFiles: legacySide.unreadable } : {}),
  };
}

export const jobRunsQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(500, 'must be at most 500')
    .default(50),
});

/** GET /api/cron/jobs/:id/runs?limit (default 50, at most 500): newest first as the runtime lists them. */
export async function listJobRuns(deps: Pick<Deps, 'runtime'>, rawId: unknown, query: unknown) {
  const id = parseJobId(rawId);
  const { limit } = parseQuery(jobRunsQuerySchema, query);
  await requireKnownJob(deps, id);
  const doc = await deps.runtime.run(runtimeCalls.cronRuns(id, limit));
  return {
    jobId: id,
    runs: arrayField(doc, 'entries', 'cron runs')
      .slice(0, limit)
      .map((e) => normalizeRunEntry(e, id)),
  };
}

async function audit(deps: Deps, action: string, jobId: string, newValue: unknown, oldValue?: unknown) {
  await requireDb(deps.storage).transaction((tx) =>
    recordChange(deps, tx, { actor: OPERATOR_ACTOR, action, entityType: 'cron_job', entityId: jobId, newValue, oldValue }),
  );
}

/**
 * POST /api/cron/jobs/:id/run: 1. validate; 2. require the database (audited action);
 * 3. ask the runtime to run the job now; a failed call is a 500 (spec 01), not a 502; 4. audit `cron.run`.
 */
export async function runJobNow(deps: Deps, rawId: unknown) {
  const id = parseJobId(rawId);
  requireDb(deps.storage);
  let data: RuntimeDocument;
  try {
    await requireKnownJob(deps, id);
    data = await deps.runtime.run(runtimeCalls.cronRun(id));
  } catch (err) {
    if (err instanceof RuntimeCallError)
      throw new ExecutionFailedError(`job ${id} was not started: ${err.message}`, { success: false, failure: err.failure });
    throw err;
  }
  await audit(deps, 'cron.run', id, { jobId: id, requestedAt: deps.clock.now().toISOString() });
  return { success: true, message: `job ${id} started`, data };
}

/** POST /api/cron/jobs/:id/enable and /disable: the runtime's answer under data; audited. */
export async function setJobEnabled(deps: Deps, rawId: unknown, enabled: boolean) {
  const id = parseJobId(rawId);
  requireDb(deps.storage);
  await requireKnownJob(deps, id);
  const data = await deps.runtime.run(enabled ? runtimeCalls.cronEnable(id) : runtimeCalls.cronDisable(id));
  await audit(deps, enabled ? 'cron.enabled' : 'cron.disabled', id, { jobId: id, enabled });
  return { success: true, data };
}

/**
 * POST /api/cron/jobs. Steps: 1. validate; 2. require the database (audited); 3. ask the runtime
 * for its jobs: the released runtime's scheduler (isReleasedSchedulerList) gets the job through
 * `cron add` (409 when a job of that name is listed; the runtime's refusal is a 502), answered
 * with the job as GET lists it; any other runtime, or none answering, gets a legacy definition
 * file as spec 01 has it (createLegacyJob). Audited `created` either way.
 */
export async function createScheduledJob(deps: Deps, body: unknown) {
  const input = parseInput(scheduledJobSchema, body ?? {}, 'job');
  requireDb(deps.storage);
  const listed = await deps.runtime.run(runtimeCalls.cronList()).catch((err: unknown) => {
    if (err instanceof RuntimeCallError) return undefined;
    throw err;
  });
  if (listed && isReleasedSchedulerList(listed)) return addRuntimeJob(deps, input, arrayField(listed, 'jobs', 'cron list'));
  return createLegacyJob(deps, input);
}

async function addRuntimeJob(deps: Deps, input: ScheduledJobInput, listed: unknown[]) {
  if (listed.some((j) => isRecord(j) && j.name === input.id)) throw new ConflictError(`the runtime already has a job named ${input.id}`);
  const request: ScheduledJobRequest = {
    name: input.id,
    cron: [input.minute, input.hour, input.dom, input.month, input.dow].join(' '),
    ...(input.tz ? { tz: input.tz } : {}),
    ...(input.description ? { description: input.description } : {}),
    ...(input.agentId ? { agentId: input.agentId } : {}),
    enabled: input.enabled,
    ...(input.command !== undefined ? { command: input.command } : { message: input.message! }),
  };
  const job = normalizeSchedulerRecord(await deps.runtime.run(runtimeCalls.cronAdd(request)));
  if (!job) throw new RuntimeCallError('runtime cron add: the answer names no job id', 'bad_output');
  await audit(deps, 'created', job.id, { id: job.id, ...request, legacy: false });
  return { success: true, id: job.id, name: input.id, legacy: false, job };
}

/** A legacy definition file, written atomically; 409 when that id exists. Audited `created`. */
async function createLegacyJob(deps: Deps, job: ScheduledJobInput) {
  if (job.message !== undefined || job.agentId !== undefined || job.tz !== undefined || !job.enabled) {
    const field = job.message !== undefined ? 'message' : job.agentId !== undefined ? 'agentId' : job.tz !== undefined ? 'tz' : 'enabled';
    throw new ValidationError(
      `job: ${field} needs the runtime's scheduler (cron add); a legacy definition file runs a command, enabled, in the server's time`,
      [{ path: field, message: 'only for the released runtime' }],
    );
  }
  const input = parseInput(
    legacyJobSchema,
    {
      id: job.id,
      description: job.description,
      minute: job.minute,
      hour: job.hour,
      dom: job.dom,
      month: job.month,
      dow: job.dow,
      command: job.command,
    },
    'job',
  );
  const { id, ...rest } = input;
  const definition = { id, ...rest, createdAt: deps.clock.now().toISOString() };
  let created: boolean;
  try {
    created = await deps.legacyJobs.create(id, definition);
  } catch (err) {
    throw new ExecutionFailedError(`job file for ${id} could not be written: ${(err as Error).message}`, { success: false });
  }
  if (!created) throw new ConflictError(`a legacy job named ${id} already exists; delete it first`);
  await audit(deps, 'created', id, definition);
  return { success: true, id };
}

/**
 * DELETE /api/cron/jobs/:id. Steps: 1. validate; 2. require the database (audited); 3. a legacy
 * definition file of that id is removed, as spec 01 has it; 4. else a job of the released runtime's
 * scheduler (isReleasedSchedulerList) listed with that id is removed through `cron rm`, since POST
 * creates its jobs there (a refusal is a 502); 5. else 404. Audited `deleted` either way.
 */
export async function deleteScheduledJob(deps: Deps, rawId: unknown) {
  const id = parseJobId(rawId);
  requireDb(deps.storage);
  let removed: boolean;
  try {
    removed = await deps.legacyJobs.remove(id);
  } catch (err) {
    throw new ExecutionFailedError(`job file for ${id} could not be removed: ${(err as Error).message}`, { success: false });
  }
  if (removed) {
    await audit(deps, 'deleted', id, undefined, { jobId: id });
    return { success: true, id };
  }
  const listed = await deps.runtime.run(runtimeCalls.cronList()).catch((err: unknown) => {
    if (err instanceof RuntimeCallError) return undefined;
    throw err;
  });
  const job =
    listed && isReleasedSchedulerList(listed) ? arrayField(listed, 'jobs', 'cron list').find((j) => isRecord(j) && j.id === id) : undefined;
  if (!job) throw new NotFoundError(`no legacy job file and no runtime job named ${id}`);
  await deps.runtime.run(runtimeCalls.cronRemove(id));
  await audit(deps, 'deleted', id, undefined, { jobId: id, legacy: false, job });
  return { success: true, id, legacy: false };
}
