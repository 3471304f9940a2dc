import { canonicalJson, sha256Hex } from '../snapshots/canonical-json';
import type { Db } from '../ports';

/**
 * Exactly-once run creation, so a client's retry never queues a second run: an Idempotency-Key
 * remembers the run it created and a hash of the request that created it, for at least
 * KEY_LIFETIME_MS. Requests with one key are serialized by a transaction-level advisory lock on the
 * key, so fifty at once create one run.
 */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

export type KeyLookup = { kind: 'new' } | { kind: 'replay'; runId: string } | { kind: 'conflict'; runId: string };

/** The hash of a parsed create request (defaults applied), so `{}` and `{"metadata": {}}` are the same request. */
export function requestHash(input: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(input));
}

/** Takes the key's lock for the rest of `tx`, then says whether the key is new, a replay, or reused with another request. */
export async function lookUpKey(tx: Db, key: string, hash: string, now: Date): Promise<KeyLookup> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('run-idempotency:' || $1, 0))`, [key]);
  const { rows } = await tx.query<{ request_hash: string; run_id: string }>(
    'SELECT request_hash, run_id FROM run_idempotency_keys WHERE idempotency_key = $1 AND expires_at > $2',
    [key, now],
  );
  const found = rows[0];
  if (!found) return { kind: 'new' };
  return found.request_hash === hash ? { kind: 'replay', runId: found.run_id } : { kind: 'conflict', runId: found.run_id };
}

/** Remembers the run the key created (replacing a lapsed entry of the same key). */
export async function rememberKey(tx: Db, key: string, hash: string, runId: string, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO run_idempotency_keys (idempotency_key, request_hash, run_id, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (idempotency_key) DO UPDATE SET request_hash = $2, run_id = $3, expires_at = $4, created_at = $5, updated_at = $5`,
    [key, hash, runId, new Date(now.getTime() + KEY_LIFETIME_MS), now],
  );
}
