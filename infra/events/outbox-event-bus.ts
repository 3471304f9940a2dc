import type { Db, DomainEvent, EventBus } from '../../core/ports';
import { redactSecrets } from '../../core/secrets/redact';

/** LISTEN/NOTIFY channel that wakes stream readers; the payload is the outbox row id. */
export const OUTBOX_NOTIFY_CHANNEL = 'task_server_outbox';

/**
 * Events go to the outbox table through the caller's transaction. When that transaction
 * commits, a deferred trigger (migration 0600) gives the row its final id in commit order and
 * NOTIFYs it, so an event exists exactly when its change committed, whichever process made it,
 * and readers can follow the outbox by id without gaps. Every payload is written redacted (spec 02
 * secrets policy): streams and the webhooks fed from them are copies that leave the server.
 */
export const outboxEventBus: EventBus = {
  async publish(db: Db, event: DomainEvent): Promise<void> {
    await db.query('INSERT INTO event_outbox (channel, name, payload) VALUES ($1, $2, $3)', [
      event.channel ?? 'stream',
      event.name,
      JSON.stringify(redactSecrets(event.payload ?? null)),
    ]);
  },
};
