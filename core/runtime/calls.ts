/**
 * The argument lists of every runtime CLI call (docs/runtime-contract.md §1), in one place.
 * Values are separate array elements, never interpolated into a command line.
 */
export const runtimeCalls = {
  health: () => ['health', '--json'],
  tasksList: (filter: { runtime?: string; status?: string }) => [
    'tasks', 'list', '--json',
    ...(filter.runtime ? ['--runtime', filter.runtime] : []),
    ...(filter.status ? ['--status', filter.status] : []),
  ],
  tasksAudit: () => ['tasks', 'audit', '--json'],
  agentsList: () => ['agents', 'list', '--json'],
  memoryIndex: (agentId: string) => ['memory', 'index', '--agent', agentId, '--json'],
  /** The released runtime refuses `--json` here and prints a line of text (see memoryIndexResult). */
  memoryIndexText: (agentId: string) => ['memory', 'index', '--agent', agentId],
  memoryPromote: (agentId: string, limit: number, apply: boolean) => [
    'memory', 'promote', '--agent', agentId, '--limit', String(limit), ...(apply ? ['--apply'] : []), '--json',
  ],
  /** `--all`: the released runtime leaves disabled jobs out without it (the contract's fake ignores it). */
  cronList: () => ['cron', 'list', '--json', '--all'],
  cronRuns: (jobId: string, limit: number) => ['cron', 'runs', jobId, '--json', '--limit', String(limit)],
  cronRun: (jobId: string) => ['cron', 'run', jobId, '--json'],
  cronEnable: (jobId: string) => ['cron', 'enable', jobId, '--json'],
  cronDisable: (jobId: string) => ['cron', 'disable', jobId, '--json'],
  /** The dispatcher's wake event (spec 03) and any other immediate system event. */
  systemEvent: (text: string) => ['system', 'event', '--text', text, '--mode', 'now', '--json'],
  /** A message into an agent session: chat, and follow-ups such as the system scan's. */
  agentMessage: (sessionKey: string, message: string) => ['agent', '--session-key', sessionKey, '--message', message, '--json'],
} as const;
