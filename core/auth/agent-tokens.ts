import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { NotFoundError, ValidationError } from '../errors';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { resolvesByName } from '../workflows/governance';
import { agentIdSchema } from '../workflows/run';
import { AGENT_TOKEN_PREFIX, agentTokenScopes, tokenDigest } from './principal';

/**
 * Agents' own credentials, so an agent no longer acts with the operator's token. A token is `fta_`
 * and 43 characters of base64url (32 random bytes); only its SHA-256 digest is stored, so a token
 * is shown once, at creation, and a leak of the database or a snapshot leaks no credential. A
 * request that presents one acts as its agent (the agentAccess middleware of
 * handlers/middleware/http-handler.ts applies core/auth/agent-access.ts).
 */
export const agentTokenSchema = z.object({
  id: z.string(),
  agent_id: z.string(),
  label: z.string().nullable(),
  scopes: z.array(z.enum(agentTokenScopes)),
  expires_at: z.date().nullable(),
  revoked_at: z.date().nullable(),
  /** When a request last presented it (to the minute); null: never. */
  last_used_at: z.date().nullable(),
  created_by: z.string(),
  created_at: z.date(),
  /** active, revoked or expired, at the time of the answer. */
  status: z.enum(['active', 'revoked', 'expired']),
});
export type AgentToken = z.infer<typeof agentTokenSchema>;

export const createdAgentTokenSchema = agentTokenSchema.extend({
  /** The token itself: shown in this answer only, never again. */
  token: z.string(),
});

const tokenColumns = 'id, agent_id, label, scopes, expires_at, revoked_at, last_used_at, created_by, created_at';
type TokenRow = Omit<AgentToken, 'status'>;

function withStatus(row: TokenRow, now: Date): AgentToken {
  const status = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at.getTime() <= now.getTime() ? 'expired' : 'active';
  return { ...row, status };
}

/** Names the token and its agent, never the token or its digest (the console's token list refreshes on it). */
function tokenEvent(action: 'created' | 'revoked', token: AgentToken) {
  return { name: 'agent-token-changed', channel: 'stream' as const, payload: { action, tokenId: token.id, agent: token.agent_id } };
}

export const createAgentTokenSchema = z.strictObject({
  agent_id: agentIdSchema.refine((id) => !resolvesByName(id), {
    message: 'names an operator (a privileged name or an operator name pattern): an agent token cannot carry operator rights',
  }),
  label: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters').optional(),
  expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional(),
  scopes: z
    .array(z.enum(agentTokenScopes, { message: `must be one of ${agentTokenScopes.join(', ')}` }))
    .min(1, 'must name at least one scope')
    .max(agentTokenScopes.length)
    .refine((s) => new Set(s).size === s.length, { message: 'names a scope twice' })
    .default(['agent']),
  actor: z.string().trim().min(1, 'must not be empty').max(200).default(OPERATOR_ACTOR),
});

/** POST /api/agent-tokens (operator): a new token for an agent, answered once with the token. */
export async function createAgentToken(deps: Deps, body: unknown) {
  const input = parseInput(createAgentTokenSchema, body ?? {}, 'agent token');
  const now = deps.clock.now();
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw new ValidationError('expires_at: must be in the future', [{ path: 'expires_at', message: 'must be in the future' }]);
  }
  const token = AGENT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const id = deps.ids.uuid();
  return requireDb(deps.storage).transaction(async (tx) => {
    const { rows } = await tx.query<TokenRow>(
      `INSERT INTO agent_tokens (id, agent_id, label, digest, scopes, expires_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${tokenColumns}`,
      [id, input.agent_id, input.label ?? null, tokenDigest(token), input.scopes, expiresAt, input.actor, now],
    );
    const created = withStatus(rows[0]!, now);
    // the audit row and state snapshot hold the token's description, never the token or its digest
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'created',
      entityType: 'agent_token',
      entityId: id,
      newValue: created,
      event: tokenEvent('created', created),
    });
    return { ...created, token };
  });
}

/** GET /api/agent-tokens (operator): every token, newest first, without secrets. */
export async function listAgentTokens(deps: Pick<Deps, 'storage' | 'clock'>) {
  const now = deps.clock.now();
  const { rows } = await requireDb(deps.storage).query<TokenRow>(`SELECT ${tokenColumns} FROM agent_tokens ORDER BY created_at DESC, id`);
  return { tokens: rows.map((row) => withStatus(row, now)) };
}

/** DELETE /api/agent-tokens/:id (operator): revokes at once; revoking a revoked token changes nothing. */
export async function revokeAgentToken(deps: Deps, rawId: unknown, actor = OPERATOR_ACTOR): Promise<AgentToken> {
  const id = parseId(rawId);
  const now = deps.clock.now();
  return requireDb(deps.storage).transaction(async (tx) => {
    const { rows: before } = await tx.query<TokenRow>(`SELECT ${tokenColumns} FROM agent_tokens WHERE id = $1 FOR UPDATE`, [id]);
    if (!before[0]) throw new NotFoundError(`agent token ${id} not found`);
    if (before[0].revoked_at) return withStatus(before[0], now);
    const { rows } = await tx.query<TokenRow>(
      `UPDATE agent_tokens SET revoked_at = $2, updated_at = $2 WHERE id = $1 RETURNING ${tokenColumns}`,
      [id, now],
    );
    const after = withStatus(rows[0]!, now);
    await recordChange(deps, tx, {
      actor,
      action: 'revoked',
      entityType: 'agent_token',
      entityId: id,
      oldValue: withStatus(before[0], now),
      newValue: after,
      event: tokenEvent('revoked', after),
    });
    return after;
  });
}
