import type { Db, EventChannel } from '../../core/ports';

/** One committed outbox row as the streams send it; `payload` stays the JSON text PostgreSQL stores. */
export interface OutboxEvent {
  id: number;
  channel: EventChannel;
  name: string;
  payload: string;
}

/** Committed events after `afterId`, oldest first (ids are in commit order: see migration 0600). */
export async function readOutboxAfter(
  db: Db,
  afterId: number,
  options: { channels?: readonly EventChannel[]; limit: number },
): Promise<OutboxEvent[]> {
  const { rows } = await db.query<OutboxEvent>(
    `SELECT id, channel, name, payload::text AS payload
       FROM event_outbox
      WHERE id > $1 AND ($2::text[] IS NULL OR channel = ANY($2::text[]))
      ORDER BY id
      LIMIT $3`,
    [afterId, options.channels ?? null, options.limit],
  );
  return rows;
}

/** The highest id committed so far (0 for an empty outbox): where a fresh reader starts. */
export async function latestOutboxId(db: Db): Promise<number> {
  const { rows } = await db.query<{ id: number }>('SELECT coalesce(max(id), 0)::bigint AS id FROM event_outbox');
  return rows[0]!.id;
}

/**
 * What a reconnecting client's Last-Event-ID can be checked against: ids at or below
 * `prunedThrough` may have been deleted; ids above `lastIssued` were never handed out by this
 * database (the client saw another database, or one since recreated).
 */
export async function outboxHorizon(db: Db): Promise<{ prunedThrough: number; lastIssued: number }> {
  const { rows } = await db.query<{ pruned_through: number; last_issued: number }>(
    `SELECT w.pruned_through, s.last_value AS last_issued
       FROM event_outbox_watermark w, event_outbox_id_seq s`,
  );
  return { prunedThrough: rows[0]?.pruned_through ?? 0, lastIssued: rows[0]?.last_issued ?? 0 };
}

/**
 * Deletes events created before `before`, in batches, and raises the pruning watermark to the
 * highest id deleted. Returns how many rows went.
 */
export async function pruneOutbox(db: Db, before: Date, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await db.query<{ deleted: number }>(
      `WITH gone AS (
         DELETE FROM event_outbox
          WHERE id IN (SELECT id FROM event_outbox WHERE created_at < $1 ORDER BY created_at LIMIT $2)
         RETURNING id
       ), mark AS (
         UPDATE event_outbox_watermark
            SET pruned_through = greatest(pruned_through, (SELECT max(id) FROM gone))
          WHERE EXISTS (SELECT 1 FROM gone)
       )
       SELECT count(*)::bigint AS deleted FROM gone`,
      [before, batchSize],
    );
    const deleted = rows[0]?.deleted ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
