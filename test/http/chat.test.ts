import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();
let callLog: string;
const clock = movableClock('2026-11-01T12:00:00.000Z');

beforeAll(async () => {
  callLog = path.join(app.dataDir, 'runtime-calls.log');
  process.env.FAKE_RUNTIME_CALL_LOG = callLog;
  app.ctx.deps.clock = clock;
});
beforeEach(async () => {
  clock.advance(10 * 60_000); // each test starts with an empty rate window
  await rm(callLog, { force: true });
});
afterEach(async () => {
  await app.db.query(`DELETE FROM settings WHERE key IN ('CHAT_RATE_LIMIT', 'MAX_MESSAGE_LENGTH')`);
});

async function lastCall(): Promise<string[]> {
  const lines = (await readFile(callLog, 'utf8')).trim().split('\n');
  return JSON.parse(lines.at(-1)!);
}

async function setSetting(key: string, value: unknown) {
  await app.db.query(
    `INSERT INTO settings (key, value, source, type) VALUES ($1, $2, 'config', 'number')
                      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [key, JSON.stringify(value)],
  );
}

describe('POST /api/agent/chat', () => {
  it('forwards the message to the runtime session dashboard-agent and returns the reply', async () => {
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'How is the queue?' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, sessionKey: 'dashboard-agent', reply: 'received: How is the queue?' });
    expect(await lastCall()).toEqual(['agent', '--session-key', 'dashboard-agent', '--message', 'How is the queue?', '--json']);
    const { rows } = await app.db.query(`SELECT action FROM audit_log WHERE entity_type = 'chat_message' ORDER BY id`);
    expect(rows.map((r) => (r as { action: string }).action)).toEqual(['chat.message', 'chat.reply']);
  });

  it('prefixes the message with the active view, space, project count and recent task count', async () => {
    await app.http('POST', '/api/agent/chat', {
      body: {
        message: 'What should I do next?',
        sessionKey: 'agent:main:main:primary',
        context: { activeView: 'board', activeSpace: { name: 'Ops' }, stats: { projects: 4, recentTasks: 12 } },
      },
    });
    const call = await lastCall();
    expect(call.slice(0, 3)).toEqual(['agent', '--session-key', 'agent:main:main:primary']);
    expect(call[4]).toBe('[Dashboard context - view: board; space: Ops; projects: 4; recent tasks: 12]\n\nWhat should I do next?');
    await app.http('POST', '/api/agent/chat', { body: { message: 'only view', context: { activeView: 'timeline' } } });
    expect((await lastCall())[4]).toBe('[Dashboard context - view: timeline]\n\nonly view');
    await app.http('POST', '/api/agent/chat', { body: { message: 'empty context', context: {} } });
    expect((await lastCall())[4]).toBe('empty context');
  });

  it('refuses a missing or empty message, a bad session key and unknown fields with 400', async () => {
    for (const body of [
      {},
      { message: '' },
      { message: '   ' },
      { message: 42 },
      { message: 'x', sessionKey: '--apply' },
      { message: 'x', extra: 1 },
      { message: 'x', context: { stats: { projects: -1 } } },
    ]) {
      const res = await app.http('POST', '/api/agent/chat', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('enforces MAX_MESSAGE_LENGTH from the settings table with a 400 naming the limit', async () => {
    await setSetting('MAX_MESSAGE_LENGTH', 10);
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'x'.repeat(11) } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/limit is 10 \(MAX_MESSAGE_LENGTH\)/);
    expect((await app.http('POST', '/api/agent/chat', { body: { message: 'x'.repeat(10) } })).status).toBe(200);
  });

  it('defaults MAX_MESSAGE_LENGTH to 10000 when the setting is absent or invalid', async () => {
    await setSetting('MAX_MESSAGE_LENGTH', 'lots');
    expect((await app.http('POST', '/api/agent/chat', { body: { message: 'y'.repeat(10_001) } })).status).toBe(400);
    expect((await app.http('POST', '/api/agent/chat', { body: { message: 'y'.repeat(10_000) } })).status).toBe(200);
  });

  it('enforces CHAT_RATE_LIMIT per minute with a 429 and retryAfterSeconds, then lets the next minute through', async () => {
    await setSetting('CHAT_RATE_LIMIT', 2);
    expect((await app.http('POST', '/api/agent/chat', { body: { message: 'one' } })).status).toBe(200);
    clock.advance(20_000);
    expect((await app.http('POST', '/api/agent/chat', { body: { message: 'two' } })).status).toBe(200);
    const third = await app.http('POST', '/api/agent/chat', { body: { message: 'three' } });
    expect(third.status).toBe(429);
    expect(third.body.error).toMatch(/CHAT_RATE_LIMIT/);
    expect(third.body.retryAfterSeconds).toBe(40);
    clock.advance(41_000);
    expect((await app.http('POST', '/api/agent/chat', { body: { message: 'four' } })).status).toBe(200);
  });

  it('a runtime failure is a 502; the turn is kept, marked failed', async () => {
    setFakeMode('exit', 'agent');
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'are you there?', sessionKey: 'failing-session' } });
    expect(res.status).toBe(502);
    const history = await app.http('GET', '/api/agent/chat/history?sessionKey=failing-session');
    expect(history.body.history).toEqual([{ role: 'user', content: 'are you there?', status: 'failed', timestamp: expect.any(String) }]);
  });

  it('random bodies never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.anything(), fc.record({ message: fc.string(), sessionKey: fc.string(), context: fc.anything() }, { requiredKeys: [] })),
        async (body) => {
          clock.advance(60_000);
          const res = await app.call('POST', '/api/agent/chat', { raw: JSON.stringify(body) ?? '' });
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('GET /api/agent/chat/history', () => {
  it('returns the latest turns oldest first, limit 50 by default', async () => {
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      await app.http('POST', '/api/agent/chat', { body: { message: `hello ${i}`, sessionKey: 'history-session' } });
    }
    const res = await app.http('GET', '/api/agent/chat/history?sessionKey=history-session');
    expect(res.status).toBe(200);
    expect(res.body.history.map((h: { role: string; content: string }) => `${h.role}:${h.content}`)).toEqual([
      'user:hello 1',
      'assistant:received: hello 1',
      'user:hello 2',
      'assistant:received: hello 2',
      'user:hello 3',
      'assistant:received: hello 3',
    ]);
    const two = await app.http('GET', '/api/agent/chat/history?sessionKey=history-session&limit=2');
    expect(two.body.history.map((h: { content: string }) => h.content)).toEqual(['hello 3', 'received: hello 3']);
    expect((await app.http('GET', '/api/agent/chat/history?limit=999999')).status).toBe(200);
    for (const q of ['limit=0', 'limit=-1', 'limit=abc', 'sessionKey=-x']) {
      expect((await app.http('GET', `/api/agent/chat/history?${q}`)).status, q).toBe(400);
    }
  });
});
