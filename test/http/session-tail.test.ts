import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStateDir } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';
import { openRaw, setStreamSetting, startStreamRunner, waitUntil, watch, type StreamRunner } from './stream-support';

/*
 * GET /api/rt/sessions/:sessionId/tail, the files way: the fixture state directory is copied, and
 * the test appends lines to the copy's transcript as the runtime would while a turn runs.
 */
const stateDir = mkdtempSync(path.join(tmpdir(), 'fleet-tail-'));
cpSync(fixtureStateDir, stateDir, { recursive: true });
const transcript = path.join(stateDir, 'agents', 'main', 'sessions', 'sess-main-1.jsonl');
const INITIAL_LINES = 12;

const app = useFakeRuntimeApp({ RUNTIME_STATE_DIR: stateDir });
let server: StreamRunner;
const opened: Array<{ close(): void }> = [];

beforeAll(async () => {
  server = await startStreamRunner(app);
});
afterEach(async () => {
  for (const s of opened.splice(0)) s.close();
  await waitUntil(() => server.streams.stats().sessionTails === 0, 'the tails to close');
});
afterAll(async () => {
  await server?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

function track<T extends { close(): void }>(stream: T): T {
  opened.push(stream);
  return stream;
}

const tailUrl = (query = '', sessionId = 'sess-main-1') => `${server.url}/api/rt/sessions/${sessionId}/tail${query}`;
type TranscriptEvent = { line: number; kind: string; role: string | null; preview?: string; [key: string]: unknown };
let appended = 0;

/** Appends a user message line; returns its text. */
function appendMessage(): string {
  const text = `appended message ${++appended}`;
  appendFileSync(
    transcript,
    `${JSON.stringify({ type: 'message', timestamp: '2026-11-01T12:00:00Z', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`,
  );
  return text;
}

describe('a live tail of a session transcript (files)', () => {
  it('first sends the events after afterLine exactly as GET …/events answers them, one frame per event, id = line', async () => {
    const page = await app.http('GET', '/api/rt/sessions/sess-main-1/events?afterLine=8');
    expect(page.status).toBe(200);
    const expected = page.body.events as TranscriptEvent[];
    expect(expected.length).toBeGreaterThan(2);
    const tail = track(watch(tailUrl('?afterLine=8'), ['transcript']));
    await tail.opened;
    await tail.waitFor(() => tail.events.length >= expected.length);
    expect(tail.events.map((e) => e.data)).toEqual(expected);
    expect(tail.events.map((e) => e.id)).toEqual(expected.map((e) => String(e.line)));
  });

  it('sends lines appended to the transcript, in order, as they are written', async () => {
    const tail = track(watch(tailUrl(`?afterLine=${INITIAL_LINES}`), ['transcript']));
    await tail.opened;
    const before = Number((await app.http('GET', '/api/rt/sessions/sess-main-1/events')).body.totalLines);
    const first = appendMessage();
    const second = appendMessage();
    await tail.waitFor((e) => e.id === String(before + 2));
    const lines = tail.events.map((e) => e.data as TranscriptEvent);
    expect(lines.map((e) => e.line)).toEqual(
      [...Array(before - INITIAL_LINES).keys()].map((i) => INITIAL_LINES + 1 + i).concat(before + 1, before + 2),
    );
    expect(lines.slice(-2).map((e) => e.preview)).toEqual([first, second]);
    const third = appendMessage();
    await tail.waitFor((e) => e.id === String(before + 3));
    expect((tail.events.at(-1)!.data as TranscriptEvent).preview).toBe(third);
    // what the tail sent is what the page answers for those lines
    const page = await app.http('GET', `/api/rt/sessions/sess-main-1/events?afterLine=${before}`);
    expect(tail.events.slice(-3).map((e) => e.data)).toEqual(page.body.events);
  });

  it("resumes after Last-Event-ID, which wins over the URL's afterLine (an EventSource reconnecting keeps its URL)", async () => {
    const text = appendMessage();
    const total = Number((await app.http('GET', '/api/rt/sessions/sess-main-1/events')).body.totalLines);
    const tail = track(watch(tailUrl('?afterLine=0'), ['transcript'], { lastEventId: String(total - 1) }));
    await tail.opened;
    await tail.waitFor(() => tail.events.length >= 1);
    expect(tail.events[0]).toMatchObject({ id: String(total), data: { line: total, role: 'user', preview: text } });
  });

  it('tails of one transcript at different cursors each get every new line, and one leaving does not stop the other', async () => {
    const total = Number((await app.http('GET', '/api/rt/sessions/sess-main-1/events')).body.totalLines);
    const near = track(watch(tailUrl(`?afterLine=${total}`), ['transcript']));
    const far = track(watch(tailUrl(`?afterLine=${total - 2}`), ['transcript']));
    await Promise.all([near.opened, far.opened]);
    await far.waitFor((e) => e.id === String(total));
    const first = appendMessage();
    await Promise.all([near.waitFor((e) => e.id === String(total + 1)), far.waitFor((e) => e.id === String(total + 1))]);
    near.close();
    await waitUntil(() => server.streams.stats().sessionTails === 1, 'the nearer tail to close');
    const second = appendMessage();
    await far.waitFor((e) => e.id === String(total + 2));
    expect(near.events.map((e) => (e.data as TranscriptEvent).preview)).toEqual([first]);
    expect(far.events.map((e) => Number(e.id))).toEqual([total - 1, total, total + 1, total + 2]);
    expect(far.events.slice(-2).map((e) => (e.data as TranscriptEvent).preview)).toEqual([first, second]);
  });

  it('holds back a line the runtime is half-way through writing, and sends it whole', async () => {
    const total = Number((await app.http('GET', '/api/rt/sessions/sess-main-1/events')).body.totalLines);
    const whole = JSON.stringify({
      type: 'message',
      timestamp: '2026-11-01T12:01:00Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'written in two parts' }] },
    });
    appendFileSync(transcript, whole.slice(0, 40));
    // the tail's first read (done before it answers 200) sees the line cut short
    const tail = track(watch(tailUrl(`?afterLine=${total}`), ['transcript']));
    await tail.opened;
    appendFileSync(transcript, `${whole.slice(40)}\n`);
    await tail.waitFor((e) => e.id === String(total + 1));
    const text = appendMessage();
    await tail.waitFor((e) => e.id === String(total + 2));
    expect(tail.events.map((e) => e.data)).toEqual([
      expect.objectContaining({ line: total + 1, role: 'assistant', preview: 'written in two parts' }),
      expect.objectContaining({ line: total + 2, role: 'user', preview: text }),
    ]);
  });

  it('sends a heartbeat comment at the SSE_HEARTBEAT_INTERVAL', async () => {
    await setStreamSetting(app, 'SSE_HEARTBEAT_INTERVAL', 40);
    try {
      const raw = track(await openRaw(tailUrl('?afterLine=100000')));
      expect(raw.status).toBe(200);
      expect(raw.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await raw.waitForComments(3);
      expect(raw.comments.slice(0, 3)).toEqual(['connected', 'heartbeat', 'heartbeat']);
      expect(raw.events).toEqual([]);
    } finally {
      await app.db.query(`DELETE FROM settings WHERE key = 'SSE_HEARTBEAT_INTERVAL'`);
    }
  });

  it('an unknown session is a 404 JSON, before any stream opens', async () => {
    const res = await fetch(tailUrl('', 'sess-nobody'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toMatchObject({ error: 'Session not found', code: 'not_found' });
    const agent = await fetch(tailUrl('?agent=nobody'));
    expect(agent.status).toBe(404);
  });

  it('a bad afterLine, Last-Event-ID, agent or session id is a 400 JSON naming it', async () => {
    for (const query of ['?afterLine=-1', '?afterLine=abc', '?afterLine=1.5', '?agent=..']) {
      const res = await fetch(tailUrl(query));
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: string; code: string; details: Array<{ path: string }> };
      expect(body.code, query).toBe('validation_failed');
    }
    const resumed = await fetch(tailUrl(), { headers: { 'last-event-id': 'abc' } });
    expect(resumed.status).toBe(400);
    expect(((await resumed.json()) as { error: string }).error).toMatch(/Last-Event-ID/);
    const hostile = await fetch(tailUrl('', '..%2F..%2Fetc'));
    expect(hostile.status).toBe(400);
  });

  it('refuses tails beyond SSE_MAX_SESSION_TAILS with 503 JSON, and a client that goes away frees its slot', async () => {
    await setStreamSetting(app, 'SSE_MAX_SESSION_TAILS', 2);
    try {
      const a = await openRaw(tailUrl('?afterLine=100000'));
      const b = track(await openRaw(tailUrl('?afterLine=100000')));
      expect([a.status, b.status]).toEqual([200, 200]);
      // the event streams are counted apart
      const events = track(await openRaw(`${server.url}/api/events`));
      expect(events.status).toBe(200);
      const refused = await fetch(tailUrl());
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('10');
      expect(await refused.json()).toMatchObject({
        code: 'too_many_session_tails',
        limit: 2,
        error: expect.stringMatching(/SSE_MAX_SESSION_TAILS/),
      });
      a.close();
      await waitUntil(() => server.streams.stats().sessionTails === 1, 'the closed tail to free its slot');
      const c = track(await openRaw(tailUrl('?afterLine=100000')));
      expect(c.status).toBe(200);
    } finally {
      await app.db.query(`DELETE FROM settings WHERE key = 'SSE_MAX_SESSION_TAILS'`);
    }
  });

  it('is an operator stream: an agent token is refused with 403', async () => {
    const res = await fetch(tailUrl(), { headers: { authorization: 'Bearer fta_not_a_real_agent_token_0000000000' } });
    expect(res.status).toBe(403);
  });
});
