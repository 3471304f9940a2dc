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
}
