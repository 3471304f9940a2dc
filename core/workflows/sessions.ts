import * as z from 'zod';
import { NotFoundError } from '../errors';
import { pageAndTotal } from '../list-page';
import type { Deps } from '../ports';
import { parseSessionKey } from '../runtime/ids';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { agentActorSchema, runColumns, sessionKeySchema, type WorkflowRun } from './run';
import { heldRunStatuses } from './run-status';
import { changeRun } from './run-store';

export const activeSessionSchema = z.object({
  session_key: z.string(),
  /** Parsed from agent:<agentId>:<kind>:<id>; null when the key has another form. */
  agent_id: z.string().nullable(),
  run_id: z.string(),
  workflow_type: z.string(),
  run_status: z.string(),
  claim_session_id: z.string().nullable(),
  task_id: z.string().nullable(),
  heartbeat_at: z.date().nullable(),
  claimed_at: z.date().nullable(),
});
export type ActiveSession = z.infer<typeof activeSessionSchema>;

export function agentIdOfSessionKey(key: string): string | null {
  return parseSessionKey(key)?.agentId ?? null;
}

/** GET /api/sessions/active: gateway sessions marked active on runs a session holds, most recent heartbeat first. */
export async function listActiveSessions(
  deps: Pick<Deps, 'storage'>,
): Promise<{ sessions: ActiveSession[]; total: number; truncated: boolean }> {
  const { rows, total, truncated } = await pageAndTotal<WorkflowRun>(
    requireDb(deps.storage),
    {
      select: runColumns,
      from: 'workflow_runs',
      where: 'gateway_session_active AND gateway_session_id IS NOT NULL AND status = ANY($1::text[])',
      orderBy: 'heartbeat_at DESC NULLS LAST, id',
    },
    [heldRunStatuses],
    500,
  );
  const sessions = rows.map((r) => ({
    session_key: r.gateway_session_id!,
    agent_id: agentIdOfSessionKey(r.gateway_session_id!),
    run_id: r.id,
    workflow_type: r.workflow_type,
    run_status: r.status,
    claim_session_id: r.claim_session_id,
    task_id: r.task_id,
    heartbeat_at: r.heartbeat_at,
    claimed_at: r.claimed_at,
  }));
  return { sessions, total, truncated };
}

const sessionHeartbeatSchema = z.strictObject({ actor: agentActorSchema }).default({});

/**
 * POST /api/sessions/:id/heartbeat: the id is a session key (URL-encoded). Every run that session
 * holds gets a heartbeat and stays marked active; a session holding no run is a 404.
 */
export async function recordSessionHeartbeat(deps: Deps, rawKey: unknown, body: unknown) {
  // path parameters arrive decoded (infra/http/route-matcher.ts, API Gateway): decoding again would turn a literal % into a 500
  const key = parseInput(sessionKeySchema, rawKey, 'session id');
  const input = parseInput(sessionHeartbeatSchema, body ?? {}, 'session heartbeat');
  const now = deps.clock.now();
  const runIds = await requireDb(deps.storage).transaction(async (tx) => {
    const { rows } = await tx.query<WorkflowRun>(
      `SELECT ${runColumns} FROM workflow_runs
        WHERE (gateway_session_id = $1 OR claim_session_id = $1) AND status = ANY($2::text[]) ORDER BY id FOR UPDATE`,
      [key, heldRunStatuses],
    );
    if (rows.length === 0) throw new NotFoundError(`session ${key} holds no claimed or running workflow run`);
    for (const run of rows) {
      await changeRun(deps, tx, run, {
        actor: input.actor ?? agentIdOfSessionKey(key) ?? key,
        action: 'heartbeat',
        set: { heartbeat_at: now, gateway_session_active: true },
      });
    }
    return rows.map((r) => r.id);
  });
  return { session_id: key, active: true, heartbeat_at: now, run_ids: runIds };
}
