import { describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();

const events = (query = '') => app.http('GET', `/api/rt/sessions/sess-main-1/events${query}`);

describe('GET /api/rt/agents and /api/rt/sessions', () => {
  it('lists each agent with its number of sessions', async () => {
    const res = await app.http('GET', '/api/rt/agents');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      agents: [
        { agentId: 'main', sessions: 3 },
        { agentId: 'writer', sessions: 1 },
      ],
    });
  });

  it('lists the sessions of agent main by default, newest first, with metadata', async () => {
    const res = await app.http('GET', '/api/rt/sessions');
    expect(res.status).toBe(200);
    expect(res.body.agentId).toBe('main');
    expect(res.body.total).toBe(3);
    expect(res.body.sessions[0]).toEqual({
      sessionId: 'sess-main-1',
      key: 'agent:main:main:primary',
      kind: 'main',
      channel: 'webchat',
      icon: 'robot',
      status: 'active',
      updatedAt: 1793534100000,
    });
    expect(res.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['sess-main-1', 'sess-sub-1', 'sess-no-transcript']);
    expect(res.body.sessions[1].kind).toBe('subagent');
  });

  it('all=true flattens every agent, adds agentId to each entry and omits the top-level agentId', async () => {
    const res = await app.http('GET', '/api/rt/sessions?all=true');
    expect(res.body).not.toHaveProperty('agentId');
    expect(res.body.total).toBe(4);
    expect(res.body.sessions.map((s: { agentId: string; sessionId: string }) => `${s.agentId}/${s.sessionId}`)).toEqual([
      'main/sess-main-1',
      'writer/sess-writer-1',
      'main/sess-sub-1',
      'main/sess-no-transcript',
    ]);
  });

  it('active=N keeps only sessions updated within N minutes of now', async () => {
    app.ctx.deps.clock = movableClock('2026-11-01T12:00:00.000Z');
    const res = await app.http('GET', '/api/rt/sessions?active=10');
    expect(res.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['sess-main-1']);
    const wide = await app.http('GET', '/api/rt/sessions?all=1&active=120');
    expect(wide.body.total).toBe(3);
  });

  it('an unknown agent is a 404; hostile agent ids and bad flags are 400', async () => {
    const unknown = await app.http('GET', '/api/rt/sessions?agent=nobody');
    expect(unknown.status).toBe(404);
    for (const q of ['agent=..', 'agent=../main', 'agent=%2Fetc', 'agent=a%2Fb', 'all=yes', 'active=-5', 'active=abc', 'active=0']) {
      const res = await app.http('GET', `/api/rt/sessions?${q}`);
      expect(res.status, q).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
  });
});

describe('GET /api/rt/sessions/:sessionId/events (replay)', () => {
  it('normalizes every line kind, one event per assistant block sharing the line number', async () => {
    const res = await events();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sessionId: 'sess-main-1',
      agentId: 'main',
      totalLines: 12,
      hasMore: false,
      nextAfterLine: 12,
      partial: true,
      truncated: false,
    });
    expect(res.body.events.map((e: { line: number; kind: string }) => `${e.line}:${e.kind}`)).toEqual([
      '1:session_meta',
      '2:model_change',
      '3:user_message',
      '4:assistant_thinking',
      '4:other',
      '4:tool_call',
      '5:tool_result',
      '6:other',
      '7:tool_call',
      '8:other',
      '9:compaction',
      '10:user_message',
      '11:tool_result',
      '12:other',
    ]);
    const [meta, model] = res.body.events;
    expect(meta.meta).toEqual({ id: 'sess-main-1', cwd: '/home/agent' });
    expect(model.model).toEqual({ provider: 'acme', modelId: 'acme-large' });
    expect(res.body.events[4]).toMatchObject({ role: 'assistant', preview: 'Listing the files now.', block: 1 });
    expect(res.body.events[7]).toMatchObject({ type: 'invalid', preview: '{this line is not json' });
    expect(res.body.events[9]).toMatchObject({ type: 'custom_marker' });
  });

  it('pairs tool calls with their results by toolCallId and leaves unpaired ones null', async () => {
    const res = await events();
    const call = res.body.events.find((e: { kind: string; line: number }) => e.kind === 'tool_call' && e.line === 4);
    expect(call.tool).toEqual({
      toolCallId: 'call-1',
      name: 'exec',
      argsPreview: '{"command":"ls -la","cwd":"/home/agent"}',
      resultLine: 5,
    });
    const result = res.body.events.find((e: { line: number }) => e.line === 5);
    expect(result.tool).toMatchObject({
      toolCallId: 'call-1',
      name: 'exec',
      callLine: 4,
      details: { status: 'completed', exitCode: 0, durationMs: 35, cwd: '/home/agent' },
    });
    const unpaired = res.body.events.find((e: { line: number }) => e.line === 7);
    expect(unpaired.tool.resultLine).toBeNull();
    const orphan = res.body.events.find((e: { line: number }) => e.line === 11);
    expect(orphan.tool).toMatchObject({
      toolCallId: 'call-9',
      callLine: null,
      details: { status: null, exitCode: null, durationMs: null, cwd: null },
    });
    expect(orphan.isError).toBe(true);
  });

  it('cuts previews to 400 characters and marks them clipped', async () => {
    const result = (await events()).body.events.find((e: { line: number }) => e.line === 5);
    expect(result.tool.resultPreview).toHaveLength(400);
    expect(result.clipped).toBe(true);
  });

  it('pages at line granularity: a page may exceed limit by the extra blocks of its last line', async () => {
    const first = await events('?limit=4');
    expect(first.body.events.map((e: { line: number }) => e.line)).toEqual([1, 2, 3, 4, 4, 4]);
    expect(first.body).toMatchObject({ hasMore: true, nextAfterLine: 4, totalLines: 12, partial: true });
    const second = await events(`?afterLine=${first.body.nextAfterLine}&limit=2`);
    expect(second.body.events.map((e: { line: number }) => e.line)).toEqual([5, 6]);
    expect(second.body.events[0].tool.callLine).toBe(4);
    const last = await events('?afterLine=11&limit=5');
    expect(last.body).toMatchObject({ hasMore: false, nextAfterLine: 12 });
    expect(last.body.events).toHaveLength(1);
    const past = await events('?afterLine=50');
    expect(past.body).toMatchObject({ events: [], hasMore: false, nextAfterLine: 50, totalLines: 12 });
  });

  it('a call on the page is paired with a result beyond the page', async () => {
    const page = await events('?afterLine=3&limit=1');
    const call = page.body.events.find((e: { kind: string }) => e.kind === 'tool_call');
    expect(call.tool.resultLine).toBe(5);
  });

  it('clamps a huge limit to 2000 and refuses negative or non-numeric numbers with 400', async () => {
    expect((await events('?limit=999999999')).status).toBe(200);
    for (const q of ['limit=0', 'limit=-1', 'limit=ten', 'afterLine=-1', 'afterLine=1.5', 'afterLine=abc', 'limit=1e3']) {
      expect((await events(`?${q}`)).status, q).toBe(400);
    }
    const ignored = await events('?unknown=1');
    expect(ignored.status).toBe(200);
    expect(ignored.headers['x-ignored-params']).toBe('unknown');
  });

  it('answers 404 Session not found for an absent transcript, and refuses path tricks in ids', async () => {
    const missing = await app.http('GET', '/api/rt/sessions/sess-no-transcript/events');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Session not found');
    const otherAgent = await app.http('GET', '/api/rt/sessions/sess-main-1/events?agent=writer');
    expect(otherAgent.status).toBe(404);
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'a..b', 'sessions.json%00', '.hidden', '-x', 'a%5Cb']) {
      const res = await app.http('GET', `/api/rt/sessions/${id}/events`);
      expect(res.status, id).toBe(400);
    }
    const viaAgent = await app.http('GET', '/api/rt/sessions/sessions/events?agent=..%2F..%2F..');
    expect(viaAgent.status).toBe(400);
  });
});

describe('GET /api/rt/sessions/:sessionId/events/:line', () => {
  it('returns the full bodies of a line, its extra events and the raw parsed line as source', async () => {
    const res = await app.http('GET', '/api/rt/sessions/sess-main-1/events/4');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sessionId: 'sess-main-1', agentId: 'main', line: 4, found: true, totalLines: 12 });
    expect(res.body.event).toMatchObject({ kind: 'assistant_thinking', preview: 'I should run ls first.' });
    expect(res.body.extraEvents.map((e: { kind: string }) => e.kind)).toEqual(['other', 'tool_call']);
    expect(res.body.extraEvents[1].tool.resultLine).toBe(5);
    expect(res.body.source.message.content).toHaveLength(3);
    const result = await app.http('GET', '/api/rt/sessions/sess-main-1/events/5');
    expect(result.body.event.tool.resultPreview).toHaveLength(908);
    expect(result.body.event.clipped).toBe(false);
    expect(result.body.event.tool.callLine).toBe(4);
  });

  it('serves a malformed line as an other event with the raw text as source', async () => {
    const res = await app.http('GET', '/api/rt/sessions/sess-main-1/events/6');
    expect(res.body.event).toMatchObject({ kind: 'other', type: 'invalid' });
    expect(res.body.source).toBe('{this line is not json');
  });

  it('answers 400 Invalid line number, 404 Event not found and 404 Session not found', async () => {
    for (const line of ['0', '-1', 'abc', '1.5', '1e2', '99999999999999999999']) {
      const res = await app.http('GET', `/api/rt/sessions/sess-main-1/events/${line}`);
      expect(res.status, line).toBe(400);
      expect(res.body.error).toBe('Invalid line number');
    }
    const beyond = await app.http('GET', '/api/rt/sessions/sess-main-1/events/13');
    expect(beyond.status).toBe(404);
    expect(beyond.body.error).toBe('Event not found');
    const noSession = await app.http('GET', '/api/rt/sessions/nope/events/1');
    expect(noSession.status).toBe(404);
    expect(noSession.body.error).toBe('Session not found');
  });
});

describe('GET /api/rt/sessions/:sessionId and /messages', () => {
  it('returns the index metadata with the last messages (default 30), totalLines, hasOlder and oldestLine', async () => {
    const res = await app.http('GET', '/api/rt/sessions/sess-main-1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sessionId: 'sess-main-1',
      key: 'agent:main:main:primary',
      channel: 'webchat',
      updatedAt: 1793534100000,
      totalLines: 12,
      hasOlder: false,
      oldestLine: 3,
      partial: true,
    });
    expect(res.body.messages.map((m: { line: number }) => m.line)).toEqual([3, 4, 5, 7, 10, 11, 12]);
    expect(res.body.messages[0]).toEqual({
      line: 3,
      type: 'message',
      timestamp: '2026-11-01T11:00:02Z',
      message: { role: 'user', content: 'Please list the files and summarise them.' },
    });
    const two = await app.http('GET', '/api/rt/sessions/sess-main-1?messages=2');
    expect(two.body).toMatchObject({ hasOlder: true, oldestLine: 11 });
    expect(two.body.messages.map((m: { line: number }) => m.line)).toEqual([11, 12]);
  });

  it('answers an indexed session without a transcript with its metadata and no messages; unknown is 404', async () => {
    const res = await app.http('GET', '/api/rt/sessions/sess-no-transcript');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sessionId: 'sess-no-transcript', messages: [], totalLines: 0, transcriptAvailable: false });
    const unknown = await app.http('GET', '/api/rt/sessions/ghost-session');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Session not found');
    expect((await app.http('GET', '/api/rt/sessions/sess-main-1?messages=-2')).status).toBe(400);
  });

  it('pages messages after a line with nextCursor and hasMore; filter=all includes every line', async () => {
    const first = await app.http('GET', '/api/rt/sessions/sess-main-1/messages?limit=3');
    expect(first.status).toBe(200);
    expect(first.body.messages.map((m: { line: number }) => m.line)).toEqual([3, 4, 5]);
    expect(first.body).toMatchObject({ sessionId: 'sess-main-1', hasMore: true, nextCursor: 5 });
    const next = await app.http('GET', `/api/rt/sessions/sess-main-1/messages?after=${first.body.nextCursor}&limit=50`);
    expect(next.body.messages.map((m: { line: number }) => m.line)).toEqual([7, 10, 11, 12]);
    expect(next.body).toMatchObject({ hasMore: false, nextCursor: null });
    const all = await app.http('GET', '/api/rt/sessions/sess-main-1/messages?filter=all');
    expect(all.body.messages).toHaveLength(12);
    expect(all.body.messages[5]).toMatchObject({ line: 6, type: 'invalid', message: null });
    expect(all.body.messages[0]).toMatchObject({ line: 1, type: 'session', message: null, data: { cwd: '/home/agent' } });
    for (const q of ['filter=some', 'after=-1', 'limit=0', 'limit=x']) {
      expect((await app.http('GET', `/api/rt/sessions/sess-main-1/messages?${q}`)).status, q).toBe(400);
    }
    expect((await app.http('GET', '/api/rt/sessions/sess-main-1/messages?limit=100000')).status).toBe(200);
  });
});
