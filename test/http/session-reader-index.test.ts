import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../core/ports/runtime';
import { sessionEventDetail, sessionEvents } from '../../core/runtime/session-events';
import { runtimeStateFiles } from '../../infra/runtime/state-files';
import { useTestApp } from '../support/use-app';

/**
 * The indexed transcript reader answers exactly what the streaming reader answers, for
 * any transcript (well-formed or not, any line endings), any page and any line, and keeps doing so
 * as the file grows. The HTTP side reads through the server's adapter (indexed); the reference is
 * the same adapter with its index taken away, so the core falls back to one streaming scan.
 */
const stateDir = path.join(os.tmpdir(), `replay-index-${process.pid}-${Date.now()}`);
const sessionsDir = () => path.join(stateDir, 'agents', 'main', 'sessions');
const CAP = 64 * 1024;

beforeAll(async () => {
  await mkdir(sessionsDir(), { recursive: true });
  await writeFile(path.join(sessionsDir(), 'sessions.json'), '{}');
});
afterAll(() => rm(stateDir, { recursive: true, force: true }));

const app = useTestApp({ env: { RUNTIME_STATE_DIR: stateDir, SESSION_REPLAY_MAX_BYTES: String(CAP) } });

function streamingDeps(): { runtime: Runtime } {
  const files = runtimeStateFiles(stateDir, CAP);
  delete (files as { indexTranscript?: unknown }).indexTranscript;
  return { runtime: { stateDir, run: async () => ({}), files } };
}

const ids = fc.constantFrom('c1', 'c2', 'c3');
const lineArb: fc.Arbitrary<string> = fc.oneof(
  fc.record({ id: ids, name: fc.constantFrom('exec', 'read') }).map(({ id, name }) =>
    JSON.stringify({
      type: 'message',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan' },
          { type: 'toolCall', id, name, arguments: { a: 1 } },
        ],
      },
    }),
  ),
  ids.map((id) =>
    JSON.stringify({
      type: 'message',
      message: { role: 'toolResult', toolCallId: id, toolName: 'exec', content: 'ok', details: { status: 'done' } },
    }),
  ),
  // a result that is not a message type: the page and the scans disagree about it, and must keep doing so
  ids.map((id) => JSON.stringify({ type: 'note', message: { role: 'toolResult', toolCallId: id } })),
  // escaped names and ids: the detail view's shortcuts skip them
  ids.map((id) => `{"type":"message","message":{"role":"assistant","content":[{"type":"tool\\u0043all","id":"${id}","name":"x"}]}}`),
  ids.map((id) => `{"type":"message","message":{"role":"toolResult","toolCallId":"\\u0063${id.slice(1)}"}}`),
  ids.map((id) => JSON.stringify({ type: 'message', message: { role: 'assistant', content: { type: 'toolCall', id, name: 'single' } } })),
  fc.string({ maxLength: 30 }).map((t) => JSON.stringify({ type: 'message', message: { role: 'user', content: t } })),
  fc.constant(JSON.stringify({ type: 'message', message: { role: 'assistant', content: [] } })),
  fc.constant(JSON.stringify({ type: 'session', id: 's', cwd: '/' })),
  // the released runtime's tree: entries naming their parent, rewinds to any earlier one
  fc.record({ id: fc.constantFrom('n1', 'n2', 'n3', 'n4'), parentId: fc.constantFrom(null, 'n1', 'n2', 'n3') }).map(({ id, parentId }) =>
    JSON.stringify({
      type: 'message',
      id,
      parentId,
      message: { role: 'assistant', content: [{ type: 'text', text: 'turn' }], usage: { input: 1, cost: { total: 0.1 } } },
    }),
  ),
  fc.constant(''),
  fc.constant('   '),
  // what the index reads from bytes must agree with what the pages parse: spacing, repeated names
  // (the last wins), ids that are no strings or lie beyond ASCII, grammar JSON.parse refuses
  ids.map(
    (id) => `{ "type" : "message" ,\t"message" : { "role" : "assistant" , "content" : [ { "type" : "toolCall" , "id" : "${id}" } ] } }`,
  ),
  ids.map((id) => `{"type":"message","message":{"role":"toolResult","toolCallId":"${id}","toolCallId":"${id}x"}}`),
  ids.map(
    (id) =>
      `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"${id}"}]},"message":{"role":"user","content":"later"}}`,
  ),
  ids.map((id) => `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"${id}","id":7}]}}`),
  ids.map((id) => `{"type":"message","message":{"role":"toolResult","toolCallId":"${id}é"}}`),
  ids.map((id) => `{"type":"message","message":{"role":"toolResult","toolCallId":"${id}",}}`),
  fc.constant('{"type":"message","message":{"role":"user","content":"tab\there"}}'),
  fc.constant('{not json'),
  fc.constant('"just a string"'),
);
const endingArb = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r');
const transcriptArb = fc
  .array(fc.tuple(lineArb, endingArb), { maxLength: 25 })
  .chain((lines) => fc.record({ lines: fc.constant(lines), lastEnding: fc.boolean() }));
const textOf = (t: { lines: Array<[string, string]>; lastEnding: boolean }) =>
  t.lines.map(([line, ending], i) => (i === t.lines.length - 1 && !t.lastEnding ? line : line + ending)).join('');

async function compare(sessionId: string, queries: string[], lines: number[]) {
  const reference = streamingDeps();
  for (const query of queries) {
    const res = await app.http('GET', `/api/rt/sessions/${sessionId}/events?${query}`);
    const expected = await sessionEvents(reference, sessionId, Object.fromEntries(new URLSearchParams(query)));
    expect(res.status, query).toBe(200);
    expect(res.body, query).toEqual(JSON.parse(JSON.stringify(expected)));
  }
  for (const line of lines) {
    const res = await app.http('GET', `/api/rt/sessions/${sessionId}/events/${line}`);
    let expected: unknown;
    let status = 200;
    try {
      expected = JSON.parse(JSON.stringify(await sessionEventDetail(reference, sessionId, String(line), {})));
    } catch (err) {
      status = (err as { code?: string }).code === 'not_found' ? 404 : 400;
      expected = { error: (err as Error).message };
    }
    expect(res.status, `line ${line}`).toBe(status);
    expect(res.body, `line ${line}`).toMatchObject(expected as object);
  }
}

let counter = 0;
describe('the indexed transcript reader', () => {
  it('answers every page and every line as the streaming reader does', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptArb, fc.nat(30), fc.integer({ min: 1, max: 8 }), async (transcript, afterLine, limit) => {
        const sessionId = `idx-${counter++}`;
        await writeFile(path.join(sessionsDir(), `${sessionId}.jsonl`), textOf(transcript));
        const n = transcript.lines.length;
        await compare(
          sessionId,
          [`limit=${limit}`, `afterLine=${afterLine}&limit=${limit}`, 'afterLine=0'],
          [...Array(n + 2).keys()].map((i) => i + 1),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('extends its index as the file grows, and still answers as the streaming reader does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transcriptArb, { minLength: 2, maxLength: 4 }), async (parts) => {
        const sessionId = `grow-${counter++}`;
        const file = path.join(sessionsDir(), `${sessionId}.jsonl`);
        await writeFile(file, '');
        let total = 0;
        for (const part of parts) {
          await appendFile(file, textOf(part));
          total += part.lines.length;
          await compare(sessionId, ['limit=3', `afterLine=${Math.max(0, total - 4)}&limit=5`], [1, Math.max(1, total - 1), total]);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('reads a transcript above the cap only up to its last complete line within it, as before', async () => {
    const sessionId = 'capped';
    const line = JSON.stringify({ type: 'message', message: { role: 'user', content: 'x'.repeat(1000) } });
    await writeFile(path.join(sessionsDir(), `${sessionId}.jsonl`), `${line}\n`.repeat(100));
    await compare(sessionId, ['limit=500', 'afterLine=60&limit=5'], [1, 63, 64, 65, 100]);
    const res = await app.http('GET', `/api/rt/sessions/${sessionId}/events?limit=1`);
    expect(res.body).toMatchObject({ truncated: true });
    expect(res.body.totalLines).toBe(Math.floor(CAP / (line.length + 1)));
  });
});
