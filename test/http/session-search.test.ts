import { describe, expect, it } from 'vitest';
import { useFakeRuntimeApp } from '../support/use-app';

const app = useFakeRuntimeApp();

const search = (query: string, session = 'sess-main-1') => app.http('GET', `/api/rt/sessions/${session}/search?${query}`);
const q = (text: string) => `q=${encodeURIComponent(text)}`;
const found = (body: { matches: { line: number; block: number; kind: string }[] }) =>
  body.matches.map((m) => `${m.line}.${m.block}:${m.kind}`);

describe('GET /api/rt/sessions/:sessionId/search', () => {
  it('finds the events whose shown text holds the words, oldest first, whatever their case', async () => {
    const res = await search(q('FILE.TXT'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sessionId: 'sess-main-1',
      agentId: 'main',
      q: 'FILE.TXT',
      hasMore: false,
      nextAfterLine: 12,
      truncated: false,
    });
    // the tool result's text and the second call's arguments
    expect(found(res.body)).toEqual(['5.0:tool_result', '7.0:tool_call']);
    const done = await search(q('all done'));
    expect(done.body.matches).toEqual([{ line: 12, block: 0, kind: 'other', role: 'assistant', snippet: 'All done.' }]);
  });

  it('searches thinking, tool names and arguments, and never the JSON around them', async () => {
    expect(found((await search(q('run ls'))).body)).toEqual(['4.0:assistant_thinking']);
    // a line's raw JSON names toolCallId, cwd and type; the text a reader sees does not
    expect(found((await search(q('toolCallId'))).body)).toEqual([]);
    expect(found((await search(q('"type"'))).body)).toEqual(['8.0:other']);
    // words JSON writes escaped (quotes, slashes) are found in the parsed text
    expect(found((await search(q('"ls -la"'))).body)).toEqual(['4.2:tool_call']);
    expect(found((await search(q('/home/agent'))).body)).toEqual(['4.2:tool_call']);
  });

  it('cuts the snippet around the first occurrence of a long text', async () => {
    const res = await search(q('file.txt\nfile.txt\nfile.txt'));
    const snippet = res.body.matches[0].snippet as string;
    expect(snippet.startsWith('exec\ntotal 2\nfile.txt')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(161);
  });

  it('pages by whole lines after afterLine: a full page stops before the next matching line', async () => {
    const first = await search(`${q('file.txt')}&limit=1`);
    expect(found(first.body)).toEqual(['5.0:tool_result']);
    expect(first.body).toMatchObject({ hasMore: true, nextAfterLine: 5 });
    const second = await search(`${q('file.txt')}&limit=1&afterLine=5`);
    expect(found(second.body)).toEqual(['7.0:tool_call']);
    expect(second.body).toMatchObject({ hasMore: false, nextAfterLine: 12 });
    // both matching blocks of line 4 stay on a page of one
    const line4 = await search(`${q('ls')}&limit=1`);
    expect(found(line4.body)).toEqual(['4.0:assistant_thinking', '4.2:tool_call']);
    expect(line4.body.hasMore).toBe(false);
    const beyond = await search(`${q('file.txt')}&afterLine=400`);
    expect(beyond.body).toMatchObject({ matches: [], hasMore: false, nextAfterLine: 400 });
  });

  it('reads the sessions of the agent named, and clamps a huge limit', async () => {
    const writer = await search(`${q('a')}&agent=writer`, 'sess-writer-1');
    expect(writer.status).toBe(200);
    expect(writer.body.agentId).toBe('writer');
    expect((await search(`${q('file')}&limit=100000`)).status).toBe(200);
  });

  it('refuses a missing, empty or overlong q and bad numbers with 400; an unknown session is 404', async () => {
    for (const query of [
      '',
      'q=',
      'q=%20%20',
      `q=${'x'.repeat(201)}`,
      `${q('a')}&limit=0`,
      `${q('a')}&limit=-1`,
      `${q('a')}&limit=abc`,
      `${q('a')}&afterLine=-1`,
      `${q('a')}&afterLine=1.5`,
      `${q('a')}&agent=..`,
    ]) {
      const res = await search(query);
      expect(res.status, query).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'a..b', '.hidden', '-x']) expect((await search(q('a'), id)).status, id).toBe(400);
    const unknown = await search(q('a'), 'sess-nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Session not found');
    expect((await search(`${q('a')}&agent=nobody`)).status).toBe(404);
  });
});
