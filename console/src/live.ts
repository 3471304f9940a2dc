import { signal } from '@preact/signals';
import { createParser } from 'eventsource-parser';
import { apiBase } from './api';
import { invalidate, type Topic } from './queries';
import { authorizationHeader, sessionRefused } from './session';

/**
 * The console's one stream: GET /api/events/stream (the path that carries run, approval and agent
 * changes as well as the task, project and budget ones), read with fetch and a stream parser so
 * the token travels in the Authorization header and never in the URL. A reconnect sends
 * Last-Event-ID, so the server replays what was missed; when it cannot, it sends `resync` and
 * every query on screen refetches. Each event invalidates the topics it touches (queries.ts).
 */
export type LiveState = 'live' | 'reconnecting' | 'offline';
export const liveState = signal<LiveState>('reconnecting');
export const liveLabel: Record<LiveState, string> = { live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline' };

/** Which cached screens an event makes stale, by event name (docs/events.md lists them). */
const topicsOf: Record<string, readonly Topic[]> = {
  'task:changed': ['tasks'],
  'project:changed': ['projects', 'tasks'],
  'run-updated': ['runs', 'approvals', 'tasks'],
  'budget:changed': ['budgets'],
  'budget-updated': ['budgets'],
  'agent-status-changed': ['agents'],
  'agent-limits-changed': ['agents'],
  'webhook:changed': ['webhooks'],
  'settings:changed': ['settings'],
  'action-update': ['runs'],
  'agent-billing-changed': ['agents'],
  'agent-token-changed': ['agents'],
  'workflow-routing-updated': ['settings'],
  'restore-progress': ['restores'],
  'restore:completed': ['restores'],
};

/** After this many failed attempts in a row the state says Offline (attempts go on, further apart). */
const OFFLINE_AFTER = 3;

let lastEventId: string | undefined;
let controller: AbortController | undefined;

function delayOf(failures: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(failures, 5));
}

async function readOnce(signal: AbortSignal, onOpen: () => void): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...authorizationHeader() };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const response = await fetch(`${apiBase()}/api/events/stream`, { headers, signal, cache: 'no-store' });
  if (response.status === 401) {
    sessionRefused();
    throw new Error('unauthorized');
  }
  if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
  onOpen();
  const parser = createParser({
    onEvent(event) {
      if (event.id) lastEventId = event.id;
      if (event.event === 'resync') invalidate('all');
      else {
        const topics = event.event ? topicsOf[event.event] : undefined;
        if (topics) invalidate(topics);
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}

/** Opens the stream and keeps it open until stopLive(); reconnects with backoff. */
export function startLive(): void {
  stopLive();
  const current = new AbortController();
  controller = current;
  void (async () => {
    let failures = 0;
    while (!current.signal.aborted) {
      try {
        await readOnce(current.signal, () => {
          // after an outage the missed events replay (or a resync comes); a first open needs nothing
          failures = 0;
          liveState.value = 'live';
        });
      } catch {
        // refused, dropped or unreachable: counted below
      }
      if (current.signal.aborted) return;
      failures++;
      liveState.value = failures >= OFFLINE_AFTER || !navigator.onLine ? 'offline' : 'reconnecting';
      await new Promise((resolve) => setTimeout(resolve, delayOf(failures)));
    }
  })();
}

export function stopLive(): void {
  controller?.abort();
  controller = undefined;
  liveState.value = 'reconnecting';
}
