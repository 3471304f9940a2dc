import { createHash, timingSafeEqual } from 'node:crypto';
import { OPERATOR_ACTOR, OPERATOR_ROLE } from '../actors';

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

/** The body of GET /api/auth/self (spec 01 Authentication). */
export function authSelf(input: { tokenRequired: boolean; presentedValidToken: boolean; publicRoutes: string[] }) {
  // Without a configured token every caller acts as the operator, so the caller is authenticated.
  const authenticated = input.tokenRequired ? input.presentedValidToken : true;
  return {
    authenticated,
    mode: 'token' as const,
    actor: OPERATOR_ACTOR,
    role: OPERATOR_ROLE,
    user: { name: OPERATOR_ACTOR, role: OPERATOR_ROLE },
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
