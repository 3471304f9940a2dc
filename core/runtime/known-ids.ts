import { NotFoundError } from '../errors';
import type { Deps } from '../ports';
import { runtimeCalls } from './calls';
import { arrayField, isRecord } from './payload';

/*
 * Spec 01: an unknown resource is a 404; 502 is for a runtime that failed. The runtime contract's
 * CLI has no "not found" answer (an unknown id is just a failed call), so the runtime's own list
 * decides before the call on the id is made. Ids of the wrong shape never get here: the id
 * schemas of ./ids refuse them with 400 first.
 */

async function listedIds(deps: Pick<Deps, 'runtime'>, call: readonly string[], field: string, name: string): Promise<Set<string>> {
  const listed = arrayField(await deps.runtime.run(call), field, name);
  return new Set(listed.flatMap((item) => (isRecord(item) && typeof item.id === 'string' ? [item.id] : [])));
}

export async function requireKnownJob(deps: Pick<Deps, 'runtime'>, jobId: string): Promise<void> {
  if (!(await listedIds(deps, runtimeCalls.cronList(), 'jobs', 'cron list')).has(jobId)) {
    throw new NotFoundError(`no scheduled job ${jobId} in the runtime`);
  }
}

export async function requireKnownAgent(deps: Pick<Deps, 'runtime'>, agentId: string): Promise<void> {
  if (!(await listedIds(deps, runtimeCalls.agentsList(), 'agents', 'agents list')).has(agentId)) {
    throw new NotFoundError(`no agent ${agentId} in the runtime`);
  }
}
