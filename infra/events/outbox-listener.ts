import pg from 'pg';
import type { Db, QueryResult } from '../../core/ports';
import { OUTBOX_NOTIFY_CHANNEL } from './outbox-event-bus';
import { sequenceOutbox } from './outbox-sequencer';
import { latestOutboxId, readOutboxAfter, type OutboxEvent } from './outbox-store';

export interface OutboxListenerOptions {
  /** The connection string of the live database, or undefined while there is none (fallback mode). */
  connectionString: () => string | undefined;
  /** Called with each page of newly committed events, in id order, never twice for one id. */
  onEvents: (events: OutboxEvent[]) => void;
  onLog?: (message: string, detail?: Record<string, unknown>) => void;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  pageSize?: number;
  /**
   * How often the listener sequences and reads on its own, for rows whose writer never got to
   * sequence them (a process that died right after its commit, a frozen Lambda).
   */
  sweepIntervalMs?: number;
}

/** A pg.Client seen through the Db port, so the outbox SQL has one home (outbox-store.ts). */
function clientDb(client: pg.Client): Db {
  return {
    inTransaction: false,
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await client.query(sql, params as unknown[]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
    transaction() {
      throw new Error('the outbox listener connection runs no transactions');
    },
    afterCommit(callback) {
      callback(this);
    },
    async writeAtCommit(sql, params) {
      await this.query(sql, params);
    },
  };
}

/**
 * Follows the outbox from one dedicated connection: LISTEN wakes it (the sequencer NOTIFYs the
 * last position it handed out), a sweep every second sequences and reads on its own, and it reads every row
 * after its cursor (so a burst of notifications costs one read, and notifications lost while
 * disconnected cost nothing: the first read after reconnecting catches up). It reconnects with
 * backoff forever, until stopped.
 */
export class OutboxListener {
  /** The last id handed to onEvents; undefined until the first connection sets it to the outbox head. */
  cursor: number | undefined;
  private client: pg.Client | undefined;
  private stopped = false;
  private reading = false;
  private readAgain = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private connected: Promise<void> | undefined;

  constructor(private readonly options: OutboxListenerOptions) {
    this.retryDelay = options.reconnectMinMs ?? 250;
  }

  /** Connects once (without throwing: failures schedule a reconnect) and resolves when the cursor is set or the attempt failed. */
  start(): Promise<void> {
    this.stopped = false;
    this.connected ??= this.connect();
    return this.connected;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  get isConnected(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    const url = this.options.connectionString();
    if (!url) return this.scheduleReconnect('no database');
    const client = new pg.Client({ connectionString: url, application_name: 'task-server-outbox-listener' });
    let failed = false;
    const onLost = (err?: Error) => {
      if (failed) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.scheduleReconnect(err?.message ?? 'connection ended');
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
      if (this.cursor === undefined) this.cursor = await latestOutboxId(clientDb(client));
    } catch (err) {
      onLost(err as Error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryDelay = this.options.reconnectMinMs ?? 250;
    client.on('notification', (message) => this.notified(message.payload ?? ''));
    this.options.onLog?.('outbox listener connected', { cursor: this.cursor });
    this.sweepTimer ??= setInterval(() => void this.sweep(), this.options.sweepIntervalMs ?? 1_000);
    this.sweepTimer.unref();
    void this.sweep();
  }

  /**
   * A pass's notification: the events it numbered (migration 0990), used as they are when they
   * start right after the cursor, or the last position it handed out, read up to when beyond the cursor.
   */
  private notified(payload: string): void {
    if (this.cursor === undefined) return;
    if (payload.startsWith('[')) {
      let carried: OutboxEvent[];
      try {
        carried = JSON.parse(payload) as OutboxEvent[];
      } catch {
        this.read();
        return;
      }
      const last = carried[carried.length - 1]?.id;
      if (last === undefined || last <= this.cursor) return;
      // a read running now may bring them too: deliver() hands out each position once
      if (carried[0]!.id === this.cursor + 1) this.deliver(carried);
      else this.read();
      return;
    }
    if (Number(payload) > this.cursor) this.read();
  }

  /** Hands the events after the cursor to onEvents and moves the cursor past them; positions already handed out are dropped. */
  private deliver(events: OutboxEvent[]): void {
    const cursor = this.cursor ?? 0;
    const fresh = events[0] && events[0].id > cursor ? events : events.filter((e) => e.id > cursor);
    if (fresh.length === 0) return;
    this.cursor = fresh[fresh.length - 1]!.id;
    this.options.onEvents(fresh);
  }

  /** Sequences what is waiting (a no-op read when nothing is), then reads after the cursor. */
  private async sweep(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await sequenceOutbox(clientDb(client)).catch(() => null);
    this.read();
  }

  private scheduleReconnect(reason: string): void {
    this.connected = undefined;
    if (this.stopped || this.retryTimer) return;
    this.options.onLog?.('outbox listener reconnecting', { reason, inMs: this.retryDelay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connected = this.connect();
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, this.options.reconnectMaxMs ?? 5_000);
  }

  /** Reads pages after the cursor until none is left; concurrent wake-ups fold into one more pass. */
  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    void (async () => {
      try {
        do {
          this.readAgain = false;
          for (;;) {
            const client = this.client;
            if (!client || this.cursor === undefined) return;
            const page = await readOutboxAfter(clientDb(client), this.cursor, { limit: this.options.pageSize ?? 1_000 });
            if (page.length === 0) break;
            // The connection may have been replaced while reading; a stale page is dropped, the cursor decides.
            if (this.client !== client) return;
            this.deliver(page);
            if (page.length < (this.options.pageSize ?? 1_000)) break;
          }
        } while (this.readAgain);
      } catch (err) {
        this.options.onLog?.('outbox read failed', { error: (err as Error).message });
      } finally {
        this.reading = false;
        if (this.readAgain && this.client) this.read();
      }
    })();
  }
}
