import type { Db, DomainEvent, EventBus } from '../../core/ports';

/** LISTEN/NOTIFY channel that wakes stream readers; the payload is the outbox row id. */
export const OUTBOX_NOTIFY_CHANNEL = 'task_server_outbox';

/**
 * Events go to the outbox table through the caller's transaction and NOTIFY fires on commit,
 * so an event exists exactly when its change committed, whichever process made it.
 */
export const outboxEventBus: EventBus = {
  async publish(db: Db, event: DomainEvent): Promise<void> {
    const { rows } = await db.query<{ id: number }>(
      'INSERT INTO event_outbox (channel, name, payload) VALUES ($1, $2, $3) RETURNING id',
      [event.channel ?? 'stream', event.name, JSON.stringify(event.payload ?? null)],
    );
    await db.query('SELECT pg_notify($1, $2)', [OUTBOX_NOTIFY_CHANNEL, String(rows[0]!.id)]);
  },
};
