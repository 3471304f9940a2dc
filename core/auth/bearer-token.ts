import { createHash, timingSafeEqual } from 'node:crypto';
import { OPERATOR_ACTOR, OPERATOR_ROLE } from '../actors';
import { isAgentToken, type Principal } from './principal';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** The token inside `Authorization: Bearer <token>`, or undefined. The scheme name is case-insensitive. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * Spec 01 Authentication 4: compares SHA-256 digests in constant time, so neither the
 * token's length nor its content leaks through timing.
 */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(expected), digest(presented));
}

/**
 * Who a bearer says it is, before anything is looked up: the operator (it is the configured token,
 * or no token is configured and it is not an agent token), an agent token still to be looked up, or
 * no one. The one reading of a bearer for every door: the handlers' middleware, the runner's check
 * before a body is read, the event streams and the cron manager.
 */
export type BearerClaim = 'operator' | 'agent_token' | 'refused';

export function claimOfBearer(configured: string | undefined, presented: string | undefined): BearerClaim {
  if (configured && tokenMatches(configured, presented)) return 'operator';
  if (isAgentToken(presented)) return 'agent_token';
  return configured ? 'refused' : 'operator';
}

/**
 * The body of GET /api/auth/self (spec 01 Authentication). With a valid agent token the
 * caller is that agent: actor and user name it, role `agent`, and `agent` gives its token's id and scopes.
 */
export function authSelf(input: { tokenRequired: boolean; presentedValidToken: boolean; publicRoutes: string[]; principal?: Principal }) {
  const agent = input.principal?.kind === 'agent' ? input.principal : undefined;
  // Without a configured token every caller acts as the operator, so the caller is authenticated.
  const authenticated = agent ? true : input.tokenRequired ? input.presentedValidToken : true;
  const actor = agent ? agent.agentId : OPERATOR_ACTOR;
  const role = agent ? 'agent' : OPERATOR_ROLE;
  return {
    authenticated,
    mode: 'token' as const,
    actor,
    role,
    user: { name: actor, role },
    ...(agent ? { agent: { agent_id: agent.agentId, token_id: agent.tokenId, scopes: agent.scopes } } : {}),
    tokenRequired: input.tokenRequired,
    supportedSchemes: ['bearer-token'],
    publicRoutes: input.publicRoutes,
    capabilities: { bearerToken: true, singleOperator: true, sessions: false, rbac: false, multiOperator: false },
    deferred: {
      fullAuth: true,
      until: 'more than one operator uses the dashboard',
      reason: 'single-operator deployment: one bearer token guards the API; login, sessions and roles are deferred',
    },
  };
}
