import type { Deps } from '../ports';
import { runtimeCalls } from '../runtime/calls';
import type { WorkflowRun } from './run';

/** Spec 03 "Wake event": the input payload is cut to this many characters. */
export const WAKE_PAYLOAD_CHARS = 200;
/** Wakes in flight at once: bounded so a large tick does not start hundreds of runtime processes. */
const WAKE_CONCURRENCY = 4;
export const DEFAULT_TASK_SERVER_URL = 'http://127.0.0.1:3876';

/** The system event text: run id, workflow type, target agent, claim URL, payload cut to 200 characters. */
export function wakeEventText(run: Pick<WorkflowRun, 'id' | 'workflow_type' | 'target_agent_id' | 'input_payload'>, claimUrlBase = DEFAULT_TASK_SERVER_URL): string {
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
 * Sends one wake system event per run (runtimeCalls.systemEvent).
 * Failures are counted, never thrown: the dispatch has already committed and stands.
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
        await deps.runtime.run(runtimeCalls.systemEvent(wakeEventText(run, claimUrlBase)));
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
