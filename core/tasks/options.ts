import type { Deps } from '../ports';
import { runtimeCalls } from '../runtime/calls';
import { arrayField } from '../runtime/payload';

export interface AgentOption {
  id: string;
  name: string;
  model: string | null;
  /** Where the agent is known from: an agent profile of this server, the runtime, or both. */
  sources: Array<'profile' | 'runtime'>;
}

export interface TaskOptions {
  defaults: { agent: string | null; model: string | null };
  agents: AgentOption[];
  models: string[];
}

const RUNTIME_DEFAULT_AGENT = 'main';

/** Runtime agents ({agents: [{id, model?, name?}]}); a runtime that fails or answers oddly has none. */
async function runtimeAgents(deps: Pick<Deps, 'runtime'>): Promise<Array<{ id: string; name?: string; model?: string }>> {
  try {
    const agents = arrayField(await deps.runtime.run(runtimeCalls.agentsList()), 'agents', 'agents list');
    return agents
      .filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null && typeof (a as { id?: unknown }).id === 'string')
      .map((a) => ({
        id: a.id as string,
        name: typeof a.name === 'string' ? a.name : undefined,
        model: typeof a.model === 'string' ? a.model : undefined,
      }));
  } catch {
    return [];
  }
}

/**
 * GET /api/task-options: the agents a task may be given to and the models they run, from the
 * agent profiles (configuration) merged with the runtime's agent list when the runtime answers.
 * The default agent is the runtime's `main` when known, else the first agent; the default model
 * is that agent's model, else the first model named anywhere.
 */
export async function getTaskOptions(deps: Pick<Deps, 'storage' | 'runtime'>): Promise<TaskOptions> {
  const profiles =
    deps.storage.mode === 'database'
      ? (
          await deps.storage.db.query<{ agent_id: string; display_name: string | null; model: string | null }>(
            'SELECT agent_id, display_name, model FROM agent_profiles ORDER BY agent_id',
          )
        ).rows
      : [];
  const byId = new Map<string, AgentOption>();
  for (const p of profiles)
    byId.set(p.agent_id, { id: p.agent_id, name: p.display_name ?? p.agent_id, model: p.model, sources: ['profile'] });
  for (const r of await runtimeAgents(deps)) {
    const known = byId.get(r.id);
    if (known) {
      known.sources.push('runtime');
      known.model ??= r.model ?? null;
    } else {
      byId.set(r.id, { id: r.id, name: r.name ?? r.id, model: r.model ?? null, sources: ['runtime'] });
    }
  }
  const agents = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  const models = [...new Set(agents.map((a) => a.model).filter((m): m is string => !!m))].sort();
  const defaultAgent = byId.get(RUNTIME_DEFAULT_AGENT) ?? agents[0];
  return {
    defaults: { agent: defaultAgent?.id ?? null, model: defaultAgent?.model ?? models[0] ?? null },
    agents,
    models,
  };
}
