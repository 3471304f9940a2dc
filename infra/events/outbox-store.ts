import type { Db, EventChannel } from '../../core/ports';

/**
 * One committed outbox row as the streams send it: `id` is the row's stream position (the SSE
 * id), not its insert id; `payload` stays the JSON text PostgreSQL stores.
 */
export interface OutboxEvent {
  id: number;
  channel: EventChannel;
  name: string;
  payload: string;
}

/** Sequenced events after position `afterId`, in position order (gap-free: see migration 0900). */
export async function readOutboxAfter(
  db: Db,
  afterId: number,
  options: { channels?: readonly EventChannel[]; limit: number },
): Promise<OutboxEvent[]> {
  const { rows } = await db.query<OutboxEvent>(
    `SELECT position AS id, channel, name, payload::text AS payload
       FROM event_outbox
      WHERE position > $1 AND ($2::text[] IS NULL OR channel = ANY($2::text[]))
      ORDER BY position
      LIMIT $3`,
    [afterId, options.channels ?? null, options.limit],
  );
  return rows;
}

/** The highest position handed out so far (0 for a new outbox): where a fresh reader starts. */
export async function latestOutboxId(db: Db): Promise<number> {
  const { rows } = await db.query<{ id: number }>('SELECT last_position AS id FROM event_outbox_watermark');
  return rows[0]?.id ?? 0;
}

/**
 * What a reconnecting client's Last-Event-ID can be checked against: positions at or below
 * `prunedThrough` may have been deleted; positions above `lastIssued` were never handed out by
 * this database (the client saw another database, or one since recreated).
 */
export async function outboxHorizon(db: Db): Promise<{ prunedThrough: number; lastIssued: number }> {
  const { rows } = await db.query<{ pruned_through: number; last_issued: number }>(
    'SELECT pruned_through, last_position AS last_issued FROM event_outbox_watermark',
  );
  return { prunedThrough: rows[0]?.pruned_through ?? 0, lastIssued: rows[0]?.last_issued ?? 0 };
}

/**
 * Deletes events created before `before`, in batches, and raises the pruning watermark to the
 * highest position deleted (a row never sequenced was never sent: it moves nothing). Returns
 * how many rows went.
 */
export async function pruneOutbox(db: Db, before: Date, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await db.query<{ deleted: number }>(
      `WITH gone AS (
         DELETE FROM event_outbox
          WHERE id IN (SELECT id FROM event_outbox WHERE created_at < $1 ORDER BY created_at LIMIT $2)
         RETURNING position
       ), mark AS (
         UPDATE event_outbox_watermark
            SET pruned_through = greatest(pruned_through, (SELECT max(position) FROM gone))
          WHERE EXISTS (SELECT position FROM gone WHERE position IS NOT NULL)
       )
       SELECT count(*)::bigint AS deleted FROM gone`,
      [before, batchSize],
    );
    const deleted = rows[0]?.deleted ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
