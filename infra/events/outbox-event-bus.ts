import type { Db, DomainEvent, EventBus } from '../../core/ports';

/** LISTEN/NOTIFY channel that wakes stream readers; the payload is the outbox row id. */
export const OUTBOX_NOTIFY_CHANNEL = 'task_server_outbox';

/**
 * Events go to the outbox table through the caller's transaction. When that transaction
 * commits, a deferred trigger (migration 0600) gives the row its final id in commit order and
 * NOTIFYs it, so an event exists exactly when its change committed, whichever process made it,
 * and readers can follow the outbox by id without gaps.
 */
export const outboxEventBus: EventBus = {
  async publish(db: Db, event: DomainEvent): Promise<void> {
    await db.query('INSERT INTO event_outbox (channel, name, payload) VALUES ($1, $2, $3)', [
      event.channel ?? 'stream',
      event.name,
      JSON.stringify(event.payload ?? null),
    ]);
  },
};
