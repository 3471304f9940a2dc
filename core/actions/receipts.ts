import * as z from 'zod';
import type { Db, Deps } from '../ports';
import { redactSecrets } from '../secrets/redact';

export const receiptOutcomes = ['executed', 'rejected_governance', 'failed'] as const;
export type ReceiptOutcome = (typeof receiptOutcomes)[number];

export const receiptSchema = z.object({
  action_id: z.string(),
  kind: z.string(),
  target_id: z.string(),
  params_hash: z.string(),
  actor: z.string(),
  outcome: z.enum(receiptOutcomes).nullable(),
  rollback_hint: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  created_at: z.date(),
});
export type Receipt = z.infer<typeof receiptSchema>;

export const receiptColumns = 'action_id, kind, target_id, params_hash, actor, outcome, rollback_hint, detail, created_at';

export function actionUpdate(receipt: Receipt) {
  return { name: 'action-update', payload: receipt, channel: 'stream' as const };
}

/** A receipt is read back by GET /api/actions/recent and streamed: its detail is stored redacted. */
function receiptDetailJson(detail: Record<string, unknown>): string {
  return JSON.stringify(redactSecrets(detail));
}

export async function findReceipt(db: Db, actionId: string): Promise<Receipt | undefined> {
  const { rows } = await db.query<Receipt>(`SELECT ${receiptColumns} FROM action_receipts WHERE action_id = $1`, [actionId]);
  return rows[0];
}

/**
 * Inserts a receipt unless one exists for the actionId (the primary key decides between racing
 * executes) and publishes action-update in the same statement's transaction. Undefined when the
 * actionId was already taken.
 */
export async function insertReceipt(
  deps: Pick<Deps, 'clock' | 'events'>,
  db: Db,
  r: Omit<Receipt, 'created_at'>,
): Promise<Receipt | undefined> {
  const { rows } = await db.query<Receipt>(
    `INSERT INTO action_receipts (action_id, kind, target_id, params_hash, actor, outcome, rollback_hint, detail, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (action_id) DO NOTHING RETURNING ${receiptColumns}`,
    [r.action_id, r.kind, r.target_id, r.params_hash, r.actor, r.outcome, r.rollback_hint, receiptDetailJson(r.detail), deps.clock.now()],
  );
  if (rows[0]) await deps.events.publish(db, actionUpdate(rows[0]));
  return rows[0];
}

/** Settles a latched receipt (outcome null) with its outcome; never touches a settled one. */
export async function settleReceipt(
  db: Db,
  actionId: string,
  outcome: ReceiptOutcome,
  rollbackHint: string | null,
  detail: Record<string, unknown>,
  at: Date,
): Promise<Receipt | undefined> {
  const { rows } = await db.query<Receipt>(
    `UPDATE action_receipts SET outcome = $2, rollback_hint = $3, detail = $4, updated_at = $5
      WHERE action_id = $1 AND outcome IS NULL RETURNING ${receiptColumns}`,
    [actionId, outcome, rollbackHint, receiptDetailJson(detail), at],
  );
  return rows[0];
}
