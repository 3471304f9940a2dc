import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { releasedHistory, startFakeGateway } from '../fixtures/runtime/fake-gateway';
import { useFakeRuntimeApp } from '../support/use-app';
import { startStreamRunner, waitUntil, watch, type StreamRunner } from './stream-support';

/*
 * GET /api/rt/sessions/:sessionId/tail through the released runtime's gateway: the tail follows the
 * SSE variant of the gateway's history route and re-reads the history after its cursor on each
 * frame; a gateway that answers that route with JSON only is re-read at a bounded pace instead.
 */
const GATEWAY_TOKEN = 'gw-secret-token-7a2d';
const gateway = await startFakeGateway(GATEWAY_TOKEN);
const app = useFakeRuntimeApp({
  RUNTIME_GATEWAY_URL: gateway.url,
  RUNTIME_GATEWAY_TOKEN: GATEWAY_TOKEN,
  RUNTIME_GATEWAY_TIMEOUT_MS: '3000',
});
const SESSION = releasedHistory.sessionId;
let server: StreamRunner;
const opened: Array<{ close(): void }> = [];

beforeAll(async () => {
  server = await startStreamRunner(app);
});
afterEach(async () => {
  for (const s of opened.splice(0)) s.close();
  await waitUntil(
    () => server.streams.stats().sessionTails === 0 && gateway.openStreams === 0,
    'the tails and their gateway streams to close',
  );
  gateway.resetHistory();
  gateway.setStreaming(true);
});
afterAll(async () => {
  await server?.close();
  await gateway.close();
});

const userMessage = (text: string, seq: number) => ({
  role: 'user',
  content: [{ type: 'text', text }],
  timestamp: 1_793_600_000_000 + seq,
  __openclaw: { id: `tail-${seq}`, seq },
});
type TranscriptEvent = { line: number; role: string | null; preview?: string };

async function totalLines(): Promise<number> {
  const res = await app.http('GET', `/api/rt/sessions/${SESSION}/events?limit=1`);
  expect(res.status).toBe(200);
  return Number(res.body.totalLines);
}

describe('a live tail of a session through the gateway', () => {
  it("replays the history as GET …/events does, then sends a message the runtime adds, as it arrives on the gateway's stream", async () => {
    const page = await app.http('GET', `/api/rt/sessions/${SESSION}/events?afterLine=5&limit=2000`);
    const total = Number(page.body.totalLines);
    const tail = watch(`${server.url}/api/rt/sessions/${SESSION}/tail?afterLine=5`, ['transcript']);
    opened.push(tail);
    await tail.opened;
    await tail.waitFor((e) => e.id === String(total));
    expect(tail.events.map((e) => e.data)).toEqual(page.body.events);
    await waitUntil(() => gateway.openStreams === 1, "the tail to follow the gateway's history stream");
    const historyReads = gateway.requests.filter((r) => r.path.endsWith('/history')).length;

    gateway.appendMessage(userMessage('a message added while the tail is open', 1));
    await tail.waitFor((e) => e.id === String(total + 1));
    expect(tail.events.at(-1)!.data).toMatchObject({ line: total + 1, role: 'user', preview: 'a message added while the tail is open' });
    // one frame, one re-read of the history (a JSON read: the stream is only the signal)
    expect(gateway.requests.filter((r) => r.path.endsWith('/history')).length).toBeGreaterThan(historyReads);
    expect(gateway.requests.every((r) => r.authorized)).toBe(true);
    expect(await totalLines()).toBe(total + 1);
  });

  it('closing the tail closes its stream on the gateway', async () => {
    const tail = watch(`${server.url}/api/rt/sessions/${SESSION}/tail?afterLine=100000`, ['transcript']);
    await tail.opened;
    await waitUntil(() => gateway.openStreams === 1, 'the gateway stream to open');
    tail.close();
    await waitUntil(() => server.streams.stats().sessionTails === 0 && gateway.openStreams === 0, 'both ends to close');
  });

  it('a gateway whose history route does not stream is re-read while the tail is open', async () => {
    gateway.setStreaming(false);
    const total = await totalLines();
    const tail = watch(`${server.url}/api/rt/sessions/${SESSION}/tail?afterLine=${total}`, ['transcript']);
    opened.push(tail);
    await tail.opened;
    gateway.appendMessage(userMessage('seen by a re-read', 2));
    await tail.waitFor((e) => e.id === String(total + 1), 10_000);
    expect((tail.events.at(-1)!.data as TranscriptEvent).preview).toBe('seen by a re-read');
    expect(gateway.openStreams).toBe(0);
  });

  it('a session the gateway does not list is a 404', async () => {
    const res = await fetch(`${server.url}/api/rt/sessions/sess-unknown-1/tail`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });
});
