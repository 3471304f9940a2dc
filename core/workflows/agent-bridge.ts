import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { agentIdSchema } from './run';
import { heldRunStatuses } from './run-status';

const PENDING_SHOWN = 10;

export interface BridgeHeartbeat {
  /** workflow_ready when dispatched work waits for this agent; working when it holds runs; idle otherwise. */
  state: 'workflow_ready' | 'working' | 'idle';
  agent: string;
  ready_count: number;
  active_count: number;
  pending_workflow_runs: Array<{
    id: string;
    workflow_type: string;
    target_agent_id: string;
    input_payload: Record<string, unknown>;
    dispatch_attempts: number;
  }>;
  workflow_run_count: number;
}

/**
 * Spec 03 "Agent bridge heartbeat output", for an agent's heartbeat script (GET /api/agents/:agent/bridge
 * and the bridge CLI). Ready: runs dispatched to the agent awaiting a claim. Active: runs it holds.
 */
export async function agentBridge(deps: Pick<Deps, 'storage'>, rawAgent: unknown): Promise<BridgeHeartbeat> {
  const agent = parseInput(agentIdSchema, rawAgent, 'agent');
  const db = requireDb(deps.storage);
  const [pending, counts] = await Promise.all([
    db.query<BridgeHeartbeat['pending_workflow_runs'][number]>(
      `SELECT id, workflow_type, target_agent_id, input_payload, dispatch_attempts FROM workflow_runs
        WHERE status = 'dispatched' AND target_agent_id = $1 ORDER BY dispatched_at, id LIMIT ${PENDING_SHOWN}`,
      [agent],
    ),
    db.query<{ ready: number; active: number }>(
      `SELECT count(*) FILTER (WHERE status = 'dispatched' AND target_agent_id = $1)::int AS ready,
              count(*) FILTER (WHERE status = ANY($2::text[]) AND coalesce(owner_agent_id, target_agent_id) = $1)::int AS active
         FROM workflow_runs WHERE target_agent_id = $1 OR owner_agent_id = $1`,
      [agent, heldRunStatuses],
    ),
  ]);
  const { ready, active } = counts.rows[0] ?? { ready: 0, active: 0 };
  return {
    state: ready > 0 ? 'workflow_ready' : active > 0 ? 'working' : 'idle',
    agent,
    ready_count: ready,
    active_count: active,
    pending_workflow_runs: pending.rows,
    workflow_run_count: ready + active,
  };
}
