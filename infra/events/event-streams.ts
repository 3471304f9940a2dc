import type http from 'node:http';
import { bearerTokenOf, claimOfBearer } from '../../core/auth/bearer-token';
import { ForbiddenError, NotFoundError, ShuttingDownError, TooManyStreamClientsError, UnauthorizedError } from '../../core/errors';
import type { EventChannel } from '../../core/ports';
import { OUTBOX_RETENTION_MS } from '../../core/ports/events';
import type { AppContext } from '../app-context';
import { logger } from '../logger';
import { OutboxListener } from './outbox-listener';
import { outboxHorizon, pruneOutbox, readOutboxAfter, type OutboxEvent } from './outbox-store';
import { SESSION_TAIL_PATH, SessionTails } from './session-tails';
import { FrameBatch, openEventStream, StreamClient, type DropReason } from './stream-client';
import { sendError } from '../http/json-answer';
import { readStreamSettings, STREAM_SETTING_DEFAULTS, type StreamSettings } from './stream-settings';

/** Spec 01 Events: /api/events carries channel `events`; the bridge-fed stream carries both. */
export const channelsByStreamPath: Readonly<Record<string, readonly EventChannel[]>> = {
  '/api/events': ['events'],
  '/api/events/stream': ['events', 'stream'],
};

export interface EventStreamsOptions {
  /** Bytes that may wait for one client before it is dropped as too slow. */
  maxBufferedBytes?: number;
  /** The `retry:` hint sent to clients (ms before an EventSource reconnects). */
  retryMs?: number;
  /** A reconnect that missed more events than this gets `resync` instead of a replay. */
  replayLimit?: number;
  /** Outbox rows older than this are pruned. */
  retentionMs?: number;
  pruneIntervalMs?: number;
}

const DEFAULTS = {
  maxBufferedBytes: 1024 * 1024,
  retryMs: 2_000,
  replayLimit: 10_000,
  retentionMs: OUTBOX_RETENTION_MS,
  pruneIntervalMs: 10 * 60 * 1000,
};

const REPLAY_PAGE = 500;
const SHUTDOWN_GRACE_MS = 2_000;

/** Last-Event-ID as an outbox id; anything else is a position this server cannot place. */
function parseLastEventId(value: string | string[] | undefined): number | 'none' | 'unknown' {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return 'none';
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : 'unknown';
}

export interface StreamRequest {
  /** The route-table path of the stream (`/api/events`, `/api/events/stream`, or a session's tail). */
  path: string;
  url: URL;
  requestId: string;
  /** The route's decoded path parameters (a tail's sessionId). */
  pathParameters?: Record<string, string>;
}

/**
 * The SSE side of the runner: authenticates and admits stream clients, replays what a
 * reconnecting client missed from the outbox, fans the listener's pages out to every client,
 * and prunes the outbox by age. One per runner process.
 */
export class EventStreams {
  private readonly options: typeof DEFAULTS;
  private readonly clients = new Set<StreamClient>();
  private readonly listener: OutboxListener;
  private readonly tails: SessionTails;
  private pruneTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private markStarted!: () => void;
  private readonly startGate = new Promise<void>((resolve) => (this.markStarted = resolve));
  private closing = false;
  private dropped = 0;

  constructor(
    private readonly ctx: Pick<AppContext, 'config' | 'deps' | 'database'>,
    options: EventStreamsOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.tails = new SessionTails(ctx, { retryMs: this.options.retryMs, maxBufferedBytes: this.options.maxBufferedBytes });
    this.listener = new OutboxListener({
      connectionString: () => this.ctx.database()?.pool.options.connectionString,
      onEvents: (events) => this.fanOut(events),
      onLog: (message, detail) => logger().info(message, detail ?? {}),
    });
  }

  /** Opens the LISTEN connection and the pruner. Streams admitted earlier wait for this. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.listener.start();
      this.pruneTimer = setInterval(() => void this.prune(), this.options.pruneIntervalMs);
      this.pruneTimer.unref();
      void this.prune();
      this.markStarted();
    })();
    return this.started;
  }

  async stop(): Promise<void> {
    await this.endAll();
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.pruneTimer = undefined;
    await this.listener.stop();
  }

  /** Ends every stream cleanly (the terminating chunk is sent) and refuses new ones. */
  async endAll(): Promise<void> {
    this.closing = true;
    const open = [...this.clients];
    const ended = Promise.all([
      ...open.map(
        (c) =>
          new Promise<void>((resolve) => (c.res.writableFinished || c.res.destroyed ? resolve() : c.res.once('close', () => resolve()))),
      ),
      ...this.tails.endAll(),
    ]);
    for (const client of open) client.drop('shutdown');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(timer);
    for (const client of open) if (!client.res.destroyed) client.res.destroy();
  }

  stats(): {
    clients: number;
    dropped: number;
    listening: boolean;
    cursor: number | undefined;
    slowestPosition: number | undefined;
    sessionTails: number;
  } {
    let slowest: number | undefined;
    for (const client of this.clients) slowest = slowest === undefined ? client.lastSentId : Math.min(slowest, client.lastSentId);
    return {
      clients: this.clients.size,
      dropped: this.dropped,
      listening: this.listener.isConnected,
      cursor: this.listener.cursor,
      slowestPosition: slowest,
      sessionTails: this.tails.size,
    };
  }

  /** Deletes outbox rows older than the retention; returns how many. */
  async prune(): Promise<number> {
    const db = this.ctx.database();
    if (!db || this.ctx.deps.storage.mode !== 'database') return 0;
    try {
      const before = new Date(this.ctx.deps.clock.now().getTime() - this.options.retentionMs);
      return await pruneOutbox(db, before);
    } catch (err) {
      logger().warn('outbox prune failed', { error: (err as Error).message });
      return 0;
    }
  }

  /** Serves GET /api/events and GET /api/events/stream (the runner hands requests over as they are). */
  async serve(req: http.IncomingMessage, res: http.ServerResponse, request: StreamRequest): Promise<void> {
    req.resume();
    const tail = request.path === SESSION_TAIL_PATH;
    const channels = channelsByStreamPath[request.path];
    if (!channels && !tail) return sendError(res, new NotFoundError(`no stream at ${request.path}`));
    if (this.closing) return sendError(res, new ShuttingDownError(), { 'retry-after': '5' });
    const access = this.access(req, request.url);
    if (access === 'agent') {
      return sendError(res, new ForbiddenError(`an agent token may not open ${request.path}: streams are the operator's`));
    }
    if (access === 'refused') {
      return sendError(res, new UnauthorizedError('missing or invalid bearer token'));
    }
    let settings: StreamSettings;
    try {
      settings = await readStreamSettings(this.ctx.deps.storage);
    } catch {
      settings = { ...STREAM_SETTING_DEFAULTS };
    }
    if (tail)
      return this.tails.serve(
        req,
        res,
        { url: request.url, requestId: request.requestId, pathParameters: request.pathParameters ?? {} },
        settings,
      );
    await this.startGate;
    if (res.destroyed || !channels) return;
    if (this.clients.size >= settings.maxClients) {
      logger().warn('stream refused: client limit reached', { path: request.path, limit: settings.maxClients });
      return sendError(res, new TooManyStreamClientsError(settings.maxClients), { 'retry-after': '10' });
    }

    const client = new StreamClient(res, channels, this.options.maxBufferedBytes, (c, reason) => this.onDrop(c, reason, request));
    // Live pages after the listener's position go to this client; older ones come from the replay.
    client.lastSentId = this.listener.cursor ?? 0;
    const lastEventId = parseLastEventId(req.headers['last-event-id']);
    if (lastEventId !== 'none') client.beginReplay();
    this.clients.add(client);
    res.on('close', () => {
      const wasOpen = this.clients.delete(client);
      client.release();
      if (wasOpen)
        logger().info('stream closed', { requestId: request.requestId, path: request.path, durationMs: Date.now() - client.openedAt });
    });
    openEventStream(res, request.requestId, this.options.retryMs);
    client.startHeartbeat(settings.heartbeatIntervalMs);
    logger().info('stream opened', {
      requestId: request.requestId,
      path: request.path,
      clients: this.clients.size,
      resume: lastEventId !== 'none',
    });
    if (lastEventId !== 'none') await this.replay(client, lastEventId);
  }

  /** The operator's, an agent token's (streams are not an agent's, with or without DASHBOARD_AUTH_TOKEN), or refused. */
  private access(req: http.IncomingMessage, url: URL): 'operator' | 'agent' | 'refused' {
    const expected = this.ctx.config.authToken;
    // The header wins when present; the query parameter is the legacy fallback for clients that cannot set one.
    const header = req.headers.authorization;
    const presented = header !== undefined ? bearerTokenOf(header) : (url.searchParams.get('token') ?? undefined);
    const claim = claimOfBearer(expected, presented);
    return claim === 'agent_token' ? 'agent' : claim;
  }

  /**
   * Sends what a reconnecting client missed, then switches it to live pages without a gap or a
   * repeat: live pages queue while the replay runs and are filtered by the last id sent.
   */
  private async replay(client: StreamClient, lastEventId: number | 'unknown'): Promise<void> {
    const position = client.lastSentId;
    try {
      const db = this.ctx.database();
      if (!db || this.ctx.deps.storage.mode !== 'database') return this.resync(client, position, 'database unavailable');
      if (lastEventId === 'unknown') return this.resync(client, position, 'unknown Last-Event-ID');
      const horizon = await outboxHorizon(db);
      if (lastEventId < horizon.prunedThrough) return this.resync(client, position, 'events since Last-Event-ID were pruned');
      if (lastEventId > horizon.lastIssued) return this.resync(client, position, 'Last-Event-ID was not issued by this server');
      let after = lastEventId;
      let sent = 0;
      for (;;) {
        const page = await readOutboxAfter(db, after, { channels: client.channels, limit: REPLAY_PAGE });
        if (client.isClosed) return;
        if (page.length === 0) break;
        sent += page.length;
        if (sent > this.options.replayLimit)
          return this.resync(client, Math.max(position, page[page.length - 1]!.id), 'too many missed events');
        await client.writePaced(new FrameBatch(page).textFor(client.channels, after));
        after = page[page.length - 1]!.id;
        if (page.length < REPLAY_PAGE) break;
      }
      client.lastSentId = Math.max(client.lastSentId, after);
      client.endReplay();
    } catch (err) {
      logger().warn('stream replay failed', { error: (err as Error).message });
      this.resync(client, position, 'replay failed');
    }
  }

  /** Tells the client to refetch its state, then carries on live from `position`. */
  private resync(client: StreamClient, position: number, reason: string): void {
    if (client.isClosed) return;
    client.lastSentId = Math.max(client.lastSentId, position);
    client.write(`id: ${client.lastSentId}\nevent: resync\ndata: ${JSON.stringify({ reason })}\n\n`);
    client.endReplay();
  }

  private fanOut(events: OutboxEvent[]): void {
    if (this.clients.size === 0) return;
    const batch = new FrameBatch(events);
    for (const client of this.clients) client.deliver(batch);
  }

  private onDrop(client: StreamClient, reason: DropReason, request: StreamRequest): void {
    this.clients.delete(client);
    if (reason === 'slow-client') {
      this.dropped++;
      logger().warn('stream client dropped: it does not read fast enough', { requestId: request.requestId, path: request.path });
    }
  }
}
