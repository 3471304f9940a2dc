import { OPERATOR_ACTOR } from '../actors';
import { GovernanceRejectedError } from '../errors';
import type { Db } from '../ports';

/**
 * Governance of spec 03: which actors may take which consequential run actions. The rule table
 * and the actor-name patterns are data; `resolveActor` and `evaluateGovernanceAction` are pure.
 * Only `resolveGovernanceActor` touches the database, to read a stored agent profile.
 */

export const governanceActions = [
  'launch_workflow',
  'approve',
  'reject',
  'cancel_run',
  'override_failure',
  'reassign_owner',
  'escalate_run',
  'escalate_approval',
  'pause_run',
  'resume_run',
] as const;
export type GovernanceAction = (typeof governanceActions)[number];

export interface GovernancePolicy {
  action: GovernanceAction;
  label: string;
  roles: readonly string[];
  capabilities: readonly string[];
}

/** Spec 03 "Governance rule table", row by row. */
export const governanceRules: Readonly<Record<GovernanceAction, Omit<GovernancePolicy, 'action'>>> = {
  launch_workflow: {
    label: 'Launch a workflow run',
    roles: ['orchestrator', 'pipeline', 'specialist', 'operator'],
    capabilities: ['orchestration', 'automation', 'workflows', 'quality', 'auditing'],
  },
  approve: { label: 'Approve an approval', roles: ['orchestrator', 'operator'], capabilities: ['quality', 'auditing', 'management'] },
  reject: { label: 'Reject an approval', roles: ['orchestrator', 'operator'], capabilities: ['quality', 'auditing', 'management'] },
  cancel_run: { label: 'Cancel a run', roles: ['orchestrator', 'operator'], capabilities: ['orchestration', 'management'] },
  override_failure: {
    label: 'Override a failed run',
    roles: ['orchestrator', 'operator'],
    capabilities: ['orchestration', 'management', 'repair', 'diagnostics'],
  },
  reassign_owner: {
    label: 'Reassign the owner',
    roles: ['orchestrator', 'operator', 'pipeline'],
    capabilities: ['orchestration', 'management'],
  },
  escalate_run: { label: 'Escalate a run', roles: ['orchestrator', 'operator', 'pipeline'], capabilities: ['orchestration', 'management'] },
  escalate_approval: {
    label: 'Escalate an approval',
    roles: ['orchestrator', 'operator', 'pipeline'],
    capabilities: ['orchestration', 'management', 'quality', 'auditing'],
  },
  pause_run: { label: 'Pause a run', roles: ['orchestrator', 'operator', 'pipeline'], capabilities: ['orchestration', 'management'] },
  resume_run: { label: 'Resume a run', roles: ['orchestrator', 'operator', 'pipeline'], capabilities: ['orchestration', 'management'] },
};

/** The agent runtime's own actor name (the runtime acting on its own behalf, e.g. its scheduler). */
export const RUNTIME_ACTOR = 'runtime';
export const SYSTEM_ACTOR = 'system';

/** Rule 1: actors with full operator privileges. */
export const privilegedActors: readonly string[] = [SYSTEM_ACTOR, OPERATOR_ACTOR, RUNTIME_ACTOR];
/** Rule 2: actor names that get the operator role. */
export const operatorNamePatterns: readonly RegExp[] = [/^ops-/, /-operator$/, /-controller$/, /-director$/];

const allCapabilities = [...new Set(Object.values(governanceRules).flatMap((r) => r.capabilities))].sort();

export type ActorSource = 'privileged' | 'name_pattern' | 'agent_profile' | 'unknown';

export interface ResolvedActor {
  name: string;
  role: string;
  capabilities: string[];
  source: ActorSource;
}

/** What a stored agent profile contributes (rule 3). */
export interface StoredAgentProfile {
  role: string | null;
  capabilities: readonly string[];
}

/** True when rules 1 or 2 decide the actor, so no profile lookup is needed. */
export function resolvesByName(name: string): boolean {
  return privilegedActors.includes(name) || operatorNamePatterns.some((p) => p.test(name));
}

/**
 * Spec 03 actor resolution, in order: (1) privileged names get full operator privileges;
 * (2) operator-like names get the operator role; (3) the stored agent profile's role and
 * capabilities; (4) anyone else is `external` with no capabilities.
 */
export function resolveActor(name: string, profile?: StoredAgentProfile | null): ResolvedActor {
  if (privilegedActors.includes(name)) return { name, role: 'operator', capabilities: [...allCapabilities], source: 'privileged' };
  if (operatorNamePatterns.some((p) => p.test(name))) return { name, role: 'operator', capabilities: [], source: 'name_pattern' };
  if (profile) {
    return { name, role: profile.role?.trim() || 'external', capabilities: [...profile.capabilities], source: 'agent_profile' };
  }
  return { name, role: 'external', capabilities: [], source: 'unknown' };
}

export function governancePolicy(action: GovernanceAction): GovernancePolicy {
  return { action, ...governanceRules[action] };
}

export interface GovernanceVerdict {
  allowed: boolean;
  actor: ResolvedActor;
  policy: GovernancePolicy;
  /** Why the actor was refused: names the roles and capabilities that would have sufficed. */
  reason?: string;
}

/**
 * Allowed when the actor's role is one of the action's roles or it holds one of its capabilities.
 * A bare name is resolved without a profile (rules 1, 2, 4); pass a ResolvedActor for rule 3.
 */
export function evaluateGovernanceAction(action: GovernanceAction, actor: string | ResolvedActor): GovernanceVerdict {
  const resolved = typeof actor === 'string' ? resolveActor(actor) : actor;
  const policy = governancePolicy(action);
  const allowed = policy.roles.includes(resolved.role) || resolved.capabilities.some((c) => policy.capabilities.includes(c));
  if (allowed) return { allowed, actor: resolved, policy };
  return {
    allowed,
    actor: resolved,
    policy,
    reason:
      `actor ${resolved.name} (role ${resolved.role}, capabilities [${resolved.capabilities.join(', ')}]) may not ${action}: ` +
      `it needs role ${policy.roles.join(' or ')}, or capability ${policy.capabilities.join(' or ')}`,
  };
}

/** The policy entries of the given actions (all of them by default), for clients that explain permissions. */
export function buildGovernancePolicySummary(actions: readonly GovernanceAction[] = governanceActions): GovernancePolicy[] {
  return actions.map((action) => governancePolicy(action));
}

/** Reads the stored profile only when the name alone does not decide (rule 3). */
export async function resolveGovernanceActor(db: Db, name: string): Promise<ResolvedActor> {
  if (resolvesByName(name)) return resolveActor(name);
  const { rows } = await db.query<{ role: string | null; capabilities: string[] }>(
    'SELECT role, capabilities FROM agent_profiles WHERE agent_id = $1',
    [name],
  );
  return resolveActor(name, rows[0] ?? null);
}

/** Resolves the actor and throws GovernanceRejectedError (403) unless the action is allowed. */
export async function requireGovernance(db: Db, action: GovernanceAction, actorName: string): Promise<GovernanceVerdict> {
  const verdict = evaluateGovernanceAction(action, await resolveGovernanceActor(db, actorName));
  if (!verdict.allowed) {
    // spec 03 "run endpoints, governance refusal": spec 02's refusal plus the verdict
    throw new GovernanceRejectedError(verdict.reason, {
      missing: { roles: verdict.policy.roles, capabilities: verdict.policy.capabilities },
      governance: { allowed: false, actor: verdict.actor, policy: verdict.policy },
    });
  }
  return verdict;
}
