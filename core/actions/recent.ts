import * as z from 'zod';
import { parseQuery } from '../query-params';
import { answeringValidation, degradable } from '../costs/availability';
import type { Deps } from '../ports';
import { receiptColumns, type Receipt } from './receipts';

export const recentReceiptsQuerySchema = z
  .object({
    limit: z
      .union([
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d+(\.\d+)?$/, 'must be a number'),
      ])
      .transform((v) => Math.min(200, Math.max(1, Math.floor(Number(v)))))
      .default(50),
  })
  .loose();

/** GET /api/actions/recent?limit=: receipts newest first, limit clamped to 1..200 (default 50). */
export async function listRecentReceipts(deps: Pick<Deps, 'storage' | 'clock'>, query: unknown) {
  return answeringValidation(async () => {
    const { limit } = parseQuery(recentReceiptsQuerySchema, query);
    return degradable(deps.storage, async (db) => {
      const { rows } = await db.query<Receipt>(
        `SELECT ${receiptColumns} FROM action_receipts ORDER BY created_at DESC, action_id LIMIT $1`,
        [limit],
      );
      return { available: true as const, receipts: rows, timestamp: deps.clock.now().toISOString() };
    });
  });
}
