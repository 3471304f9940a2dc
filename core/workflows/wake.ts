import type { Deps } from '../ports';
import { runtimeCalls } from '../runtime/calls';
import { fileNameIdSchema, mainSessionKey } from '../runtime/ids';
import type { WorkflowRun } from './run';

/** Spec 03 "Wake event": the input payload is cut to this many characters. */
export const WAKE_PAYLOAD_CHARS = 200;
/** Wakes in flight at once: bounded so a large tick does not start hundreds of runtime processes. */
const WAKE_CONCURRENCY = 4;
export const DEFAULT_TASK_SERVER_URL = 'http://127.0.0.1:3876';

/** The system event text: run id, workflow type, target agent, claim URL, payload cut to 200 characters. */
export function wakeEventText(
  run: Pick<WorkflowRun, 'id' | 'workflow_type' | 'target_agent_id' | 'input_payload'>,
  claimUrlBase = DEFAULT_TASK_SERVER_URL,
): string {
  const payload = JSON.stringify(run.input_payload ?? {}).slice(0, WAKE_PAYLOAD_CHARS);
  const claimUrl = `${claimUrlBase.replace(/\/+$/, '')}/api/workflow-runs/${run.id}/claim`;
  return [
    `Workflow run ${run.id} (${run.workflow_type}) is dispatched to ${run.target_agent_id}.`,
    `Claim it now: POST ${claimUrl} with {agent_id, session_id}.`,
    `Payload: ${payload}`,
  ].join('\n');
}

export interface WakeOutcome {
  woken: number;
  failed: number;
  /** The first few failure messages, for the tick summary. */
  errors: string[];
}

/**
 * Where a tick's wakes go when its caller must not wait for them (the runner's timer): the wakes
 * are sent in the background, so that a runtime slow to answer (a wake waits for the agent's
 * heartbeat, 10 to 25 s) never holds the tick, and their outcome is reported when they are done.
 */
export interface WakeLane {
  /** Starts the wakes and returns at once. */
  send(wakes: () => Promise<WakeOutcome>): void;
}

/** The main session of the run's target agent, where its wake belongs; none for a target that is no agent id. */
export function wakeSessionKey(run: Pick<WorkflowRun, 'target_agent_id'>): string | undefined {
  return run.target_agent_id && fileNameIdSchema.safeParse(run.target_agent_id).success ? mainSessionKey(run.target_agent_id) : undefined;
}

/**
 * Sends one wake system event per run (runtimeCalls.systemEvent) to the main session of the run's
 * target agent. Failures are counted, never thrown: the dispatch has already committed and stands.
 */
export async function wakeAgents(
  deps: Pick<Deps, 'runtime'>,
  runs: ReadonlyArray<Pick<WorkflowRun, 'id' | 'workflow_type' | 'target_agent_id' | 'input_payload'>>,
  claimUrlBase?: string,
): Promise<WakeOutcome> {
  const outcome: WakeOutcome = { woken: 0, failed: 0, errors: [] };
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const run = runs[next++]!;
      try {
        await deps.runtime.run(runtimeCalls.systemEvent(wakeEventText(run, claimUrlBase), wakeSessionKey(run)));
        outcome.woken++;
      } catch (err) {
        outcome.failed++;
        if (outcome.errors.length < 5) outcome.errors.push(`run ${run.id}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WAKE_CONCURRENCY, runs.length) }, worker));
  return outcome;
}
