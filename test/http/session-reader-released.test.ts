import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * The session reader on a transcript as the released runtime writes it: the rows of one real
 * session (test/fixtures/runtime/openclaw-2026.9.6/transcript_main.json, one `ev` per line), and the
 * same session rewound: a last entry whose parent is the first reply, which leaves the turns written
 * after that reply off the kept branch.
 */
const SESSION = 'b29b85b3-4446-48f0-9b8e-9f53ab26327d';
const REWOUND = 'rewound-b29b85b3';
const FIRST_REPLY = '1ab3ae53-dd80-468e-90c7-30c37f007870';

const rows = JSON.parse(
  readFileSync(new URL('../fixtures/runtime/openclaw-2026.9.6/transcript_main.json', import.meta.url), 'utf8'),
) as Array<{ ev: string }>;
const lines = rows.map((r) => r.ev);
const rewindEntry = JSON.stringify({
  type: 'message',
  id: 'after-rewind-1',
  parentId: FIRST_REPLY,
  timestamp: '2026-11-27T18:40:00.000Z',
  message: { role: 'user', content: 'let us try that again', timestamp: 1795804800000 },
});

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'released-state-'));
const sessionsDir = path.join(stateDir, 'agents', 'main', 'sessions');
mkdirSync(sessionsDir, { recursive: true });
writeFileSync(
  path.join(sessionsDir, 'sessions.json'),
  JSON.stringify({
    'agent:main:main': { sessionId: SESSION, updatedAt: 1795804500000 },
    'agent:main:rewound': { sessionId: REWOUND, updatedAt: 1795804800000 },
  }),
);
writeFileSync(path.join(sessionsDir, `${SESSION}.jsonl`), `${lines.join('\n')}\n`);
writeFileSync(path.join(sessionsDir, `${REWOUND}.jsonl`), `${[...lines, rewindEntry].join('\n')}\n`);
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const app = useFakeRuntimeApp({ RUNTIME_STATE_DIR: stateDir });

type Event = { line: number; kind: string; type: string; role: string | null; entryId?: string; rewound?: boolean; [key: string]: unknown };
const eventsOf = async (sessionId: string): Promise<Event[]> => {
  const res = await app.http('GET', `/api/rt/sessions/${sessionId}/events?agent=main&limit=2000`);
  expect(res.status).toBe(200);
  return res.body.events;
};

describe('the session reader on the released runtime transcripts', () => {
  it('lists the session of a three-segment key with its kind', async () => {
    const res = await app.http('GET', '/api/rt/sessions?agent=main');
    expect(res.status).toBe(200);
    expect(res.body.sessions.find((s: { sessionId: string }) => s.sessionId === SESSION)).toMatchObject({
      key: 'agent:main:main',
      kind: 'main',
    });
  });

  it('reads model-snapshot as a model change and run-failed-before-reply as a failed assistant turn', async () => {
    const events = await eventsOf(SESSION);
    const failed = events.filter((e) => e.type === 'custom_message');
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({
      kind: 'other',
      role: 'assistant',
      isError: true,
      failedTurn: {
        runId: 'b1654e5f-0ff2-4357-970a-9f1abbce5a35',
        error: 'No route-compatible authentication source is configured for openai.',
      },
    });
    expect(events.find((e) => e.kind === 'model_change')).toMatchObject({
      line: 6,
      type: 'custom',
      model: { provider: 'mock', modelId: 'mock-1' },
    });
  });

  it("keeps each assistant message's provider, model, stop reason, usage and cost, once per message", async () => {
    const events = await eventsOf(SESSION);
    const firstReply = events.filter((e) => e.entryId === FIRST_REPLY);
    expect(firstReply).toHaveLength(1);
    expect(firstReply[0]).toMatchObject({
      role: 'assistant',
      assistant: {
        provider: 'mock',
        model: 'mock-1',
        stopReason: 'stop',
        usage: expect.objectContaining({ input: expect.any(Number) }),
        cost: expect.objectContaining({ total: expect.any(Number) }),
      },
    });
    const toolTurn = events.find((e) => e.kind === 'tool_call');
    expect(toolTurn).toMatchObject({ assistant: { stopReason: 'toolUse' } });
    // four assistant messages (one a tool call), each counted once
    const replies = events.filter((e) => e.assistant !== undefined);
    expect(replies).toHaveLength(4);

    const messages = await app.http('GET', `/api/rt/sessions/${SESSION}/messages?agent=main&limit=500`);
    expect(messages.status).toBe(200);
    const assistantMessages = messages.body.messages.filter((m: { message: { role: string } }) => m.message.role === 'assistant');
    // four assistant messages and the two turns that failed before one
    expect(assistantMessages).toHaveLength(6);
    expect(assistantMessages.filter((m: { failedTurn?: unknown }) => m.failedTurn)).toHaveLength(2);
    expect(assistantMessages.find((m: { entryId: string }) => m.entryId === FIRST_REPLY)).toMatchObject({
      assistant: { provider: 'mock', model: 'mock-1', stopReason: 'stop' },
    });
  });

  it('follows the id/parentId tree: a straight transcript has nothing rewound', async () => {
    const events = await eventsOf(SESSION);
    const inTree = events.filter((e) => e.entryId !== undefined);
    expect(inTree.length).toBe(events.length - 1); // every line but the session header
    expect(inTree.every((e) => e.rewound === false)).toBe(true);
  });

  it('marks the entries a rewind left behind, in events, event details, messages and the session detail', async () => {
    const events = await eventsOf(REWOUND);
    const rewoundLines = [...new Set(events.filter((e) => e.rewound).map((e) => e.line))];
    // lines 9 to 18 (the rows after the first reply) were rewound; the new last entry is kept
    expect(rewoundLines).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(events.find((e) => e.entryId === 'after-rewind-1')).toMatchObject({ rewound: false, parentId: FIRST_REPLY });
    expect(events.find((e) => e.entryId === FIRST_REPLY)).toMatchObject({ rewound: false });

    const detail = await app.http('GET', `/api/rt/sessions/${REWOUND}/events/11?agent=main`);
    expect(detail.status).toBe(200);
    expect(detail.body.event).toMatchObject({ rewound: true });

    const messages = await app.http('GET', `/api/rt/sessions/${REWOUND}/messages?agent=main&limit=500`);
    const byEntry = new Map(messages.body.messages.map((m: { entryId: string; rewound: boolean }) => [m.entryId, m.rewound]));
    expect(byEntry.get('after-rewind-1')).toBe(false);
    expect(byEntry.get('29a5cc09-' + lines[9]!.split('"id":"29a5cc09-')[1]!.split('"')[0])).toBe(true);

    const session = await app.http('GET', `/api/rt/sessions/${REWOUND}?agent=main&messages=3`);
    expect(session.status).toBe(200);
    expect(session.body.messages.map((m: { rewound: boolean }) => m.rewound)).toEqual([true, true, false]);
  });
});
