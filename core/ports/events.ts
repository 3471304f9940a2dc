import type { Db } from './db';

/** How long outbox rows are kept for stream replay; the runner prunes older ones and the doctor reports them. */
export const OUTBOX_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The streams of spec 01 "Events": /api/events carries `events`, /api/events/stream carries both. */
export type EventChannel = 'events' | 'stream';

export interface DomainEvent {
  name: string;
  payload: unknown;
  channel?: EventChannel;
}

/**
 * Publishing takes the Db of the caller's transaction, so an event is written
 * if and only if the change it describes commits.
 */
export interface EventBus {
  publish(db: Db, event: DomainEvent): Promise<void>;
  /**
   * The event as the row a caller's own statement inserts into `event_outbox`, for a write that
   * is one statement and one round trip (a claim): channel, name and the payload's JSON text,
   * redacted as publish writes it. `committed` is to be called once that statement committed
   * having written the row. Absent on a bus that is not the outbox: such writes use publish.
   */
  inline?(event: DomainEvent): InlineEvent;
}

/** An event's outbox row, written by the caller's statement (EventBus.inline). */
export interface InlineEvent {
  channel: EventChannel;
  name: string;
  payload: string;
  committed(db: Db): void;
}
