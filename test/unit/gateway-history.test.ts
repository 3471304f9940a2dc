import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gatewaySessionRows, transcriptLinesOfHistory } from '../../core/runtime/gateway-history';
import { eventsOfLine, parseLine } from '../../core/runtime/replay';

/* The real gateway's answers (test/fixtures/runtime/openclaw-2026.9.6/) written back as transcript lines. */
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/runtime/openclaw-2026.9.6/${name}`, import.meta.url), 'utf8'));

describe('the gateway history as transcript lines', () => {
  it('the real HTTP history: a session line, the user message, a model snapshot, then the reply with its usage and cost', () => {
    const history = fixture('history_http.out') as { messages: unknown[] };
    const lines = transcriptLinesOfHistory('s-1', history.messages);
    const events = lines.flatMap((text, i) => eventsOfLine(i + 1, parseLine(text)));
    expect(events.map((e) => e.kind)).toEqual(['session_meta', 'user_message', 'model_change', 'other']);
    expect(events[0]).toMatchObject({ meta: { id: 's-1' } });
    expect(events[1]).toMatchObject({ preview: 'hello probe', timestamp: new Date(1795823173979).toISOString() });
    expect(events[2]).toMatchObject({ model: { provider: 'mock', modelId: 'mock-1' } });
    expect(events[3]).toMatchObject({
      role: 'assistant',
      assistant: {
        provider: 'mock',
        model: 'mock-1',
        stopReason: 'stop',
        usage: expect.objectContaining({ input: 1000, output: 50 }),
        cost: expect.objectContaining({ total: 0.0011 }),
      },
    });
    // the runtime's own bookkeeping stays out of the message; its id names the line
    expect(JSON.parse(lines[1]!)).toMatchObject({ type: 'message', id: 'b5e63300-36a3-4ca6-bb96-f2e596850001' });
    expect(lines[1]).not.toContain('__openclaw');
  });

  it('writes a model snapshot only where the provider or model changes, and leaves out what is not an object', () => {
    const reply = (model: string) => ({ role: 'assistant', provider: 'p', model, content: [{ type: 'text', text: model }] });
    const lines = transcriptLinesOfHistory('s', [reply('a'), reply('a'), 'junk', null, reply('b')]).map(
      (l) => JSON.parse(l) as { type: string },
    );
    expect(lines.map((l) => l.type)).toEqual(['session', 'custom', 'message', 'message', 'custom', 'message']);
  });

  it("a failed turn without details takes its run id from the runtime's bookkeeping and its error from the text", () => {
    const [, line] = transcriptLinesOfHistory('s', [
      {
        role: 'custom',
        customType: 'run-failed-before-reply',
        content: 'This turn ended before a reply: model offline',
        __openclaw: { id: 'e1', runId: 'r1' },
      },
    ]);
    expect(eventsOfLine(2, parseLine(line!))[0]).toMatchObject({
      role: 'assistant',
      isError: true,
      failedTurn: { runId: 'r1', error: 'model offline' },
    });
  });

  it('reads the rows of the real sessions_list answer, and refuses an answer without a sessions array', () => {
    const answer = fixture('tools_invoke_sessions_list.out') as { result: { details: unknown } };
    expect(gatewaySessionRows(answer.result.details)).toEqual({
      rows: [
        {
          key: 'agent:main:main',
          sessionId: '016fb2c4-0e0a-47fd-9fed-be5255d978e7',
          agentId: 'main',
          kind: 'main',
          channel: null,
          status: 'done',
          updatedAt: 1795823205805,
        },
      ],
      hasMore: false,
      nextOffset: null,
    });
    expect(gatewaySessionRows({ count: 0 })).toBeUndefined();
  });
});
