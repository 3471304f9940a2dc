import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearFakeRuntimeEnv, fakeRuntimeEnv } from '../fixtures/runtime/fake-runtime-env';
import { useTestApp } from '../support/use-app';

const CAP = 8 * 1024;
// The state directory is named now, since the app's environment is fixed when the file loads.
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'runtime-state-'));

/** A transcript of `lines` user messages, each line about 100 bytes. */
function transcript(lines: number): string {
  const out = [JSON.stringify({ type: 'session', id: 'big', timestamp: '2026-11-01T00:00:00Z', cwd: '/' })];
  for (let i = 2; i <= lines; i++)
    out.push(JSON.stringify({ type: 'message', message: { role: 'user', content: `message number ${i} ${'x'.repeat(40)}` } }));
  return `${out.join('\n')}\n`;
}

// Registered before the app's own hook: the transcripts exist when it starts.
beforeAll(async () => {
  const sessions = path.join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  await writeFile(path.join(sessions, 'sessions.json'), JSON.stringify({ 'agent:main:main:big': { sessionId: 'big', updatedAt: 1 } }));
  await writeFile(path.join(sessions, 'big.jsonl'), transcript(1000));
  await writeFile(path.join(sessions, 'small.jsonl'), transcript(10));
  await writeFile(path.join(sessions, 'one-long-line.jsonl'), `${JSON.stringify({ type: 'session', pad: 'y'.repeat(CAP * 2) })}\n`);
});
afterAll(() => rm(stateDir, { recursive: true, force: true }));
const app = useTestApp(
  { env: fakeRuntimeEnv({ RUNTIME_STATE_DIR: stateDir, SESSION_REPLAY_MAX_BYTES: String(CAP) }) },
  { afterClose: clearFakeRuntimeEnv },
);

describe('transcripts over SESSION_REPLAY_MAX_BYTES', () => {
  it('reads only the complete lines within the cap and sets truncated, without marking the cut line partial', async () => {
    const res = await app.http('GET', '/api/rt/sessions/big/events?limit=2000');
    expect(res.status).toBe(200);
    expect(res.body.truncated).toBe(true);
    expect(res.body.partial).toBe(false);
    const bytesPerLine = Buffer.byteLength(transcript(3).split('\n')[2]!) + 1;
    expect(res.body.totalLines).toBeGreaterThan(CAP / bytesPerLine - 3);
    expect(res.body.totalLines).toBeLessThanOrEqual(Math.ceil(CAP / bytesPerLine) + 1);
    expect(res.body.events).toHaveLength(res.body.totalLines);
    expect(res.body.hasMore).toBe(false);
  });

  it('a transcript under the cap is not truncated', async () => {
    const res = await app.http('GET', '/api/rt/sessions/small/events');
    expect(res.body).toMatchObject({ truncated: false, partial: false, totalLines: 10 });
  });

  it('a first line longer than the cap leaves nothing readable: no events, truncated, and its detail is not found', async () => {
    const res = await app.http('GET', '/api/rt/sessions/one-long-line/events');
    expect(res.body).toMatchObject({ events: [], totalLines: 0, truncated: true });
    const detail = await app.http('GET', '/api/rt/sessions/one-long-line/events/1');
    expect(detail.status).toBe(404);
    expect(detail.body.error).toBe('Event not found');
  });

  it('the detail endpoint and the session view report truncation too', async () => {
    const detail = await app.http('GET', '/api/rt/sessions/big/events/2');
    expect(detail.body).toMatchObject({ found: true, truncated: true });
    const session = await app.http('GET', '/api/rt/sessions/big?messages=5');
    expect(session.body).toMatchObject({ truncated: true, hasOlder: true, key: 'agent:main:main:big' });
    expect(session.body.messages).toHaveLength(5);
  });
});
