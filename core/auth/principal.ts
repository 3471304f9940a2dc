import { createHash } from 'node:crypto';
import type { Db } from '../ports';

/**
 * Who a request acts as (the operator, or the agent of an agent token), and how an agent token is
 * recognised and looked up: the small part of agent tokens every request needs (the HTTP middleware
 * imports this, not the token management of core/auth/agent-tokens.ts).
 */
export const AGENT_TOKEN_PREFIX = 'fta_';

export const agentTokenScopes = ['agent', 'read'] as const;
export type AgentTokenScope = (typeof agentTokenScopes)[number];

/** Who a request acts as: the operator (spec 01's one token, or loopback dev mode) or one agent. */
export type Principal = { kind: 'operator' } | { kind: 'agent'; agentId: string; tokenId: string; scopes: readonly AgentTokenScope[] };

export const OPERATOR_PRINCIPAL: Principal = { kind: 'operator' };

/** The hex SHA-256 of a token: what is stored and looked up. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a presented bearer is shaped like an agent token (any other bearer is compared with the operator's). */
export function isAgentToken(bearer: string | undefined): bearer is string {
  return bearer !== undefined && bearer.startsWith(AGENT_TOKEN_PREFIX);
}

/**
 * The agent a presented token belongs to, or undefined when it is unknown, revoked or expired.
 * Looked up by digest on every request, so a revocation holds from its commit on.
 */
export async function principalOfAgentToken(db: Db, token: string, now: Date): Promise<Principal | undefined> {
  // one round trip: the lookup, and last_used_at moved forward at most once a minute (a write, not one per request)
  const { rows } = await db.query<{ id: string; agent_id: string; scopes: AgentTokenScope[] }>(
    `WITH t AS (SELECT id, agent_id, scopes, last_used_at FROM agent_tokens
                 WHERE digest = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)),
          touched AS (UPDATE agent_tokens a SET last_used_at = $2 FROM t
                       WHERE a.id = t.id AND (t.last_used_at IS NULL OR t.last_used_at < $2::timestamptz - interval '1 minute'))
     SELECT id, agent_id, scopes FROM t`,
    [tokenDigest(token), now],
  );
  const row = rows[0];
  return row ? { kind: 'agent', agentId: row.agent_id, tokenId: row.id, scopes: row.scopes } : undefined;
}
