import type { Db, DomainEvent, EventBus, InlineEvent } from '../../core/ports';
import { redactSecrets } from '../../core/secrets/redact';
import { sequenceOutboxSoon } from './outbox-sequencer';

/** LISTEN/NOTIFY channel that wakes stream readers; the payload is the last position handed out. */
export const OUTBOX_NOTIFY_CHANNEL = 'task_server_outbox';

/**
 * Events go to the outbox table through the caller's transaction, so an event exists exactly
 * when its change committed, whichever process made it; the INSERT travels with the COMMIT
 * (Db.writeAtCommit), so an event costs no round trip of its own. The row gets its stream position after
 * the commit (outbox-sequencer.ts, migration 0900), so writers never wait for each other. Every
 * payload is written redacted (spec 02 secrets policy): streams and the webhooks fed from them
 * are copies that leave the server.
 */
export const outboxEventBus: EventBus = {
  async publish(db: Db, event: DomainEvent): Promise<void> {
    await db.writeAtCommit('INSERT INTO event_outbox (channel, name, payload) VALUES ($1, $2, $3)', [
      event.channel ?? 'stream',
      event.name,
      JSON.stringify(redactSecrets(event.payload ?? null)),
    ]);
    db.afterCommit(sequenceOutboxSoon);
  },
  inline(event: DomainEvent): InlineEvent {
    return {
      channel: event.channel ?? 'stream',
      name: event.name,
      payload: JSON.stringify(redactSecrets(event.payload ?? null)),
      committed: sequenceOutboxSoon,
    };
  },
};
