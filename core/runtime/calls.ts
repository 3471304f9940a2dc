/**
 * How long the runtime's health call waits for its gateway before it answers that the gateway is
 * down: a gateway on the same machine answers in milliseconds, and a health check that takes a
 * minute to say "down" holds every status page that asks.
 */
export const HEALTH_WAIT_MS = 5_000;

/**
 * How long a call may take is a matter of what it asks the runtime to do (docs/runtime-contract.md):
 * `turn` an agent turn (the runtime's own limit is 600 s), `wake` a system event (it waits for the
 * agent's heartbeat), `memory` an index rebuild or promotion (tens of seconds), `listing` the rest.
 */
export type RuntimeCallKind = 'listing' | 'memory' | 'wake' | 'turn';

const kindByCommand: Readonly<Record<string, RuntimeCallKind>> = { agent: 'turn', system: 'wake', memory: 'memory' };

/** The kind of a call, from its command word (the first argument); anything else is a listing. */
export function runtimeCallKind(args: readonly string[]): RuntimeCallKind {
  return kindByCommand[args[0] ?? ''] ?? 'listing';
}

/** What `cron add` is given: a cron schedule and either a shell command or an agent turn's message. */
export type ScheduledJobRequest = {
  name: string;
  cron: string;
  tz?: string;
  description?: string;
  agentId?: string;
  enabled: boolean;
} & ({ command: string } | { message: string });

/**
 * The argument lists of every runtime CLI call (docs/runtime-contract.md §1), in one place.
 * Values are separate array elements, never interpolated into a command line.
 */
export const runtimeCalls = {
  /** `--timeout`: how long the runtime waits for its gateway (its own default is 60 s); see HEALTH_WAIT_MS. */
  health: () => ['health', '--json', '--timeout', String(HEALTH_WAIT_MS)],
  tasksList: (filter: { runtime?: string; status?: string }) => [
    'tasks',
    'list',
    '--json',
    ...(filter.runtime ? ['--runtime', filter.runtime] : []),
    ...(filter.status ? ['--status', filter.status] : []),
  ],
  tasksAudit: () => ['tasks', 'audit', '--json'],
  agentsList: () => ['agents', 'list', '--json'],
  memoryIndex: (agentId: string) => ['memory', 'index', '--agent', agentId, '--json'],
  /** The released runtime refuses `--json` here and prints a line of text (see memoryIndexResult). */
  memoryIndexText: (agentId: string) => ['memory', 'index', '--agent', agentId],
  memoryPromote: (agentId: string, limit: number, apply: boolean) => [
    'memory',
    'promote',
    '--agent',
    agentId,
    '--limit',
    String(limit),
    ...(apply ? ['--apply'] : []),
    '--json',
  ],
  /** `--all`: the released runtime leaves disabled jobs out without it (the contract's fake ignores it). */
  cronList: () => ['cron', 'list', '--json', '--all'],
  cronRuns: (jobId: string, limit: number) => ['cron', 'runs', jobId, '--json', '--limit', String(limit)],
  cronRun: (jobId: string) => ['cron', 'run', jobId, '--json'],
  cronEnable: (jobId: string) => ['cron', 'enable', jobId, '--json'],
  cronDisable: (jobId: string) => ['cron', 'disable', jobId, '--json'],
  /** The released runtime's scheduler: `{ok, removed}`; an unknown id exits 1 ("Automation not found"). */
  cronRemove: (jobId: string) => ['cron', 'rm', jobId, '--json'],
  /**
   * A job of the released runtime's scheduler. Free text goes as `--flag=value`, so a value that
   * starts with a dash is never read as a flag. `--no-deliver`: a job created here reports through
   * its run history, not into a chat (the runtime's default, announce to the last channel, fails
   * closed where no channel is configured).
   */
  cronAdd: (job: ScheduledJobRequest) => [
    'cron',
    'add',
    `--name=${job.name}`,
    '--cron',
    job.cron,
    ...(job.tz ? ['--tz', job.tz] : []),
    ...(job.description ? [`--description=${job.description}`] : []),
    ...('command' in job ? [`--command=${job.command}`] : [`--message=${job.message}`]),
    ...(job.agentId ? ['--agent', job.agentId] : []),
    ...(job.enabled ? [] : ['--disabled']),
    '--no-deliver',
    '--json',
  ],
  /**
   * The dispatcher's wake event (spec 03) and any other immediate system event. Without a session key
   * the released runtime delivers it to its default agent's main session, whoever it is meant for.
   */
  systemEvent: (text: string, sessionKey?: string) => [
    'system',
    'event',
    '--text',
    text,
    '--mode',
    'now',
    ...(sessionKey ? ['--session-key', sessionKey] : []),
    '--json',
  ],
  /** A message into an agent session: chat, and follow-ups such as the system scan's. */
  agentMessage: (sessionKey: string, message: string) => ['agent', '--session-key', sessionKey, '--message', message, '--json'],
} as const;
