import { NotFoundError, RuntimeCallError, StorageUnavailableError } from '../errors';
import type { Deps } from '../ports';
import { parseId } from '../validation';
import { parseSessionKey } from './ids';
import { readSessionIndex } from './session-reader';

/** At most this many runs, newest first (spec 01 Limits). */
export const TASK_SESSIONS_MAX_RUNS = 20;

/** Run status → liveness (spec 03 "Run liveness"): finished statuses are listed, everything else is live. */
const livenessByStatus: Readonly<Record<string, 'completed' | 'failed'>> = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'failed',
  timed_out: 'failed',
};

interface RunRow {
  id: string;
  workflow_type: string;
  status: string;
  gateway_session_id: string | null;
  gateway_session_active: boolean;
  session_history: string[] | null;
  retry_count: number;
  started_at: Date | null;
  finished_at: Date | null;
  heartbeat_at: Date | null;
  active_run: boolean;
}

const epochMs = (d: Date | null) => (d ? d.getTime() : null);

/**
 * GET /api/tasks/:id/sessions. Steps: 1. validate; 2. require the database (503 "storage not
 * initialized" otherwise); 3. 404 for an unknown task; 4. read its 20 newest runs; 5. read each
 * involved agent's session index once to resolve session keys to transcript ids. Nothing is
 * written and no transcript body is read.
 */
export async function taskSessions(deps: Pick<Deps, 'storage' | 'runtime'>, rawTaskId: unknown) {
  const taskId = parseId(rawTaskId);
  if (deps.storage.mode !== 'database') {
    throw new StorageUnavailableError(`storage not initialized: task sessions need the database (${deps.storage.reason})`);
  }
  const db = deps.storage.db;
  const task = await db.query<{ active_workflow_run_id: string | null }>('SELECT active_workflow_run_id FROM tasks WHERE id = $1', [
    taskId,
  ]);
  if (!task.rowCount) throw new NotFoundError(`task ${taskId} not found`);
  const activeRunId = task.rows[0]!.active_workflow_run_id;
  const { rows } = await db.query<RunRow>(
    `SELECT id, workflow_type, status, gateway_session_id, gateway_session_active, session_history, retry_count,
            started_at, finished_at, heartbeat_at, (id::text = $2) AS active_run
       FROM workflow_runs WHERE task_id = $1
      ORDER BY created_at DESC, id DESC LIMIT ${TASK_SESSIONS_MAX_RUNS}`,
    [taskId, activeRunId],
  );

  const keyOf = (run: RunRow) => run.gateway_session_id ?? run.session_history?.at(-1) ?? null;
  const agentIds = [...new Set(rows.map((r) => parseSessionKey(keyOf(r))?.agentId).filter((a): a is string => !!a))];
  const indexes = new Map<string, Map<string, string>>();
  await Promise.all(
    agentIds.map(async (agentId) => {
      try {
        const sessions = deps.runtime.files ? await readSessionIndex(deps.runtime.files, agentId) : undefined;
        indexes.set(agentId, new Map((sessions ?? []).map((s) => [s.key, s.sessionId])));
      } catch (err) {
        // An unreadable index leaves its sessions unresolved (orphaned) rather than failing the list.
        if (!(err instanceof RuntimeCallError)) throw err;
      }
    }),
  );

  const sessions = rows.map((run) => {
    const sessionKey = keyOf(run);
    const parsed = parseSessionKey(sessionKey);
    const sessionId = (parsed && sessionKey && indexes.get(parsed.agentId)?.get(sessionKey)) ?? null;
    const liveness = livenessByStatus[run.status] ?? 'live';
    const history = run.session_history ?? [];
    const deepLink =
      liveness === 'live' && run.gateway_session_id
        ? { view: 'console', params: { sessionKey: run.gateway_session_id } }
        : sessionId && parsed
          ? { view: 'session-replay', params: { sessionId, agentId: parsed.agentId } }
          : null;
    return {
      runId: run.id,
      workflowType: run.workflow_type,
      runStatus: run.status,
      isActiveRun: run.active_run,
      sessionKey,
      agentId: parsed?.agentId ?? null,
      sessionId,
      sessionActive: run.gateway_session_active && run.gateway_session_id !== null,
      liveness,
      startedAt: epochMs(run.started_at),
      finishedAt: epochMs(run.finished_at),
      heartbeatAt: epochMs(run.heartbeat_at),
      retryCount: run.retry_count,
      retryCycled: run.retry_count > 0 && history.length < run.retry_count,
      sessionHistory: history,
      deepLink,
    };
  });
  return { taskId, sessions };
}
