import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../handlers/routes';
const MAX_JSON_DEPTH = 128;
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * What a hostile client sends must never produce a 5xx or a dropped connection.
 * Requests go through a raw node:http client, so paths and bodies reach the runner byte for byte.
 */

const TOKEN = 'hostile-run-token';
const auth = { authorization: `Bearer ${TOKEN}` };

const app = useFakeRuntimeApp({ DASHBOARD_AUTH_TOKEN: TOKEN });
let base: URL;
beforeAll(async () => {
  base = new URL(await app.baseUrl());
});

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request on a fresh connection; rejects when the connection fails or is reset before the whole answer arrived. */
function send(method: string, path: string, options: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent: false,
        headers: { ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), ...options.headers },
      },
      (res) => {
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          resolve({ status: res.statusCode!, headers: res.headers, text: '' });
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

describe('deep nesting', () => {
  it.each([
    ['POST', '/api/agents/heartbeat', (d: number) => `{"agent_name":"deep","metadata":${nested(d)}}`, 5000],
    ['POST', '/api/projects', (d: number) => `{"name":"deep","metadata":${nested(d)}}`, 5000],
    ['POST', '/api/tasks', (d: number) => `{"title":"deep","metadata":${nested(d)}}`, 5000],
    ['POST', '/api/workflow-runs', (d: number) => `{"workflow_type":"x","metadata":${nested(d)}}`, 5000],
    ['POST', '/api/spaces', (d: number) => `{"name":"deep","settings":${nested(d)}}`, 5000],
    ['POST', '/api/import', (d: number) => `{"version":1,"settings":${nested(d)}}`, 5000],
    [
      'POST',
      '/api/actions/execute',
      (d: number) => `{"actionId":"${randomUUID()}","kind":"task.assign","targetId":"x","params":${nested(d)}}`,
      10000,
    ],
    ['POST', '/api/restore/apply', (d: number) => `{"restoreId":"${randomUUID()}","artifact":${nested(d)}}`, 5000],
    ['POST', '/api/agents/heartbeat', (d: number) => `{"agent_name":"arrays","metadata":{"a":${'['.repeat(d)}${']'.repeat(d)}}}`, 5000],
  ])('%s %s nested thousands deep answers 400 naming the limit', async (method, path, body, depth) => {
    const res = await send(method, path, { headers: auth, body: body(depth) });
    expect(res.status, res.text).toBe(400);
    expect(JSON.parse(res.text).error).toContain(`nested deeper than ${MAX_JSON_DEPTH}`);
  });

  it('a body at the limit is accepted; brackets inside strings do not count', async () => {
    const atLimit = await send('POST', '/api/agents/heartbeat', {
      headers: auth,
      body: `{"agent_name":"edge","metadata":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(atLimit.status, atLimit.text).toBe(200);
    const inStrings = await send('POST', '/api/agents/heartbeat', {
      headers: auth,
      body: JSON.stringify({ agent_name: 'strings', metadata: { s: '{['.repeat(5000), q: '\\"{'.repeat(300) } }),
    });
    expect(inStrings.status, inStrings.text).toBe(200);
  });
});

describe('malformed escapes in a path', () => {
  it.each(['%', '%zz', '%C0%AE', '%FF%FE', '%ED%A0%80', 'ok%'])('POST /api/sessions/%s/heartbeat answers 400', async (segment) => {
    const res = await send('POST', `/api/sessions/${segment}/heartbeat`, { headers: auth, body: '{}' });
    expect(res.status, res.text).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'validation_failed', error: 'path parameter id: malformed percent-encoding' });
  });

  it('every parameterised route answers 400 to a malformed escape', async () => {
    for (const route of routes.filter((r) => r.path.includes(':'))) {
      const path = route.path.replace(/:[A-Za-z]+/g, '%E0%A4%A');
      const res = await send(route.method, path, { headers: auth, body: route.method === 'GET' ? undefined : '{}' });
      expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBe(400);
    }
  });
});

/**
 * Sends a body as a client that keeps sending after the answer arrived (as curl does), over a raw
 * socket: Node's own client stops uploading once a `Connection: close` answer is in. The first
 * MB goes out, then, once the answer starts arriving, the rest. Resolves with the answer when the
 * whole upload was written and the server closed; rejects on any reset along the way.
 */
function sendWhileAnswered(
  path: string,
  total: number,
  declareLength: boolean,
  headers: Record<string, string> = auth,
  method = 'POST',
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(256 * 1024, 'x');
    const framed = (data: Buffer) =>
      declareLength ? data : Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const socket = net.connect(Number(base.port), base.hostname);
    const received: Buffer[] = [];
    let sent = 0;
    let uploaded = false;
    const next = () => {
      if (sent >= total) return;
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      const last = sent >= total;
      const bytes = last && !declareLength ? Buffer.concat([framed(piece), Buffer.from('0\r\n\r\n')]) : framed(piece);
      socket.write(bytes, (err) => {
        if (err) return reject(err);
        if (last) uploaded = true;
        else if (received.length) next();
      });
    };
    socket.on('data', (data: Buffer) => {
      const first = received.length === 0;
      received.push(data);
      if (first) next(); // the answer is in: send the rest
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (!uploaded) return reject(new Error(`connection closed after ${sent} of ${total} bytes were sent`));
      const text = Buffer.concat(received).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head!.split('\r\n');
      const parsed = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: parsed, text: rest.join('\r\n\r\n') });
    });
    const headerLines = Object.entries({
      ...headers,
      host: base.host,
      'content-type': 'application/json',
      ...(declareLength ? { 'content-length': String(total) } : { 'transfer-encoding': 'chunked' }),
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`${method} ${path} HTTP/1.1\r\n${headerLines}\r\n`);
    for (let i = 0; i < 5; i++) next();
  });
}

describe('oversize bodies', () => {
  it.each([
    ['a declared length', true],
    ['a chunked body', false],
  ])('a 5 MB body with %s gets its 413 {error} with Connection: close, and the client can finish sending', async (_, declared) => {
    for (let i = 0; i < 3; i++) {
      const res = await sendWhileAnswered('/api/tasks', 5 * 1024 * 1024, declared);
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.text)).toMatchObject({ code: 'payload_too_large', error: expect.stringContaining('too large') });
    }
  });

  it('a client without a token sending 2 MB gets 401, not 413, and can finish sending', async () => {
    const res = await sendWhileAnswered('/api/tasks', 2 * 1024 * 1024, true, {});
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.text)).toMatchObject({ code: 'unauthorized' });
    // public routes still take their bodies without a token
    const publicPost = routes.find((r) => r.public && r.method === 'POST' && !r.path.includes(':'));
    if (publicPost) expect((await send('POST', publicPost.path, { body: '{}' })).status).not.toBe(401);
  });
});

describe('refusals before the body is read', () => {
  const longRawId = `${'é'.repeat(1000)}${'x'.repeat(1000)}`;
  it.each([
    [
      'DELETE',
      `/api/tasks/${longRawId}`,
      400,
      'malformed_request',
      'a 2,000-character id with raw non-ASCII bytes (unparsable request line)',
    ],
    ['DELETE', '/api/tasks/a\u0001b', 400, 'malformed_request', 'a raw control character in the path'],
    ['GET', `/api/projects?${'k'.repeat(20 * 1024)}=1`, 431, 'header_too_large', 'a request line above the header limit'],
    ['DELETE', '/api/tasks/%E0%A4%A', 400, 'validation_failed', 'a malformed percent-escape'],
    ['POST', '/api/no-such-route', 404, 'not_found', 'no route'],
    ['PUT', '/api/projects', 404, 'not_found', 'a method the path does not take'],
  ])('%s %s with a 5 MB body: the client reads the whole %i answer (%s)', async (method, path, status, code, _what) => {
    for (const declared of [true, false]) {
      const res = await sendWhileAnswered(path, 5 * 1024 * 1024, declared, auth, method);
      expect(res.status, res.text).toBe(status);
      expect(JSON.parse(res.text)).toMatchObject({ code, error: expect.any(String) });
    }
  });
});

/*
 * A property over every route of the route table: hostile path parameters, query keys and values,
 * and bodies, over real HTTP, with a fixed seed per route. Query strings are written raw, so the
 * runner receives escapes such as %00, %0D%0A, %C3%28 and %FF exactly as a hostile client sends them.
 */
describe('fuzz over the route table', () => {
  const segment = fc.oneof(
    fc.constantFrom(
      '%',
      '%zz',
      '%C0%AE',
      '%FF%FE',
      '%ED%A0%80',
      '%00',
      '%2F',
      'a%2Fb',
      '%0D%0A',
      '..',
      '%2e%2e%2f',
      'a'.repeat(300),
      'a'.repeat(2000),
      '-rf',
      'main',
      'daily-digest',
      'agent:main:main:1',
    ),
    fc.constantFrom('é', '☃', '😀', 'ünï', '\u0000', '\u202e').map(encodeURIComponent),
    fc.uuid().map(String),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );
  /** Query keys and values as they appear in the raw query string (already escaped, or deliberately not validly). */
  const hostileText = fc.oneof(
    fc.constantFrom(
      '%00',
      'a%00b',
      '%01',
      '%1F',
      '%7F',
      '%0D%0A',
      'a%0Db',
      '%0A',
      '%09',
      '%C3%28',
      '%FF',
      '%E0%A4%A',
      '%',
      '%zz',
      '__proto__',
      'constructor',
      'prototype',
      '%E2%80%AE',
      '%F0%9F%98%80',
    ),
    fc.constantFrom('limit', 'agent', 'status', 'since', 'cursor', 'q', 'project_id', 'offset', 'days', 'page', 'x'),
    fc.constantFrom('-1', '1e9', '0', 'NaN', 'true', ''),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
  );
  const LONG_KEY = 'k'.repeat(8 * 1024);
  // pairs drawn from a small set, so keys repeat; at most one 8 KB key (two would pass the runner's 16 KB header limit)
  const query = fc
    .tuple(fc.array(fc.tuple(hostileText, hostileText), { minLength: 1, maxLength: 6 }), fc.boolean())
    .map(([pairs, long]) => [...pairs.map(([k, v]) => `${k}=${v}`), ...(long ? [`${LONG_KEY}=1`] : [])].join('&'));
  /** Every hostile key at once, repeated, with the 8 KB one: the first request each route gets. */
  const EVERY_HOSTILE_KEY = [
    '%00=1',
    'a%00b=1',
    '%01=1',
    '%7F=1',
    '%0D%0A=1',
    'a%0Db=x%0Ay',
    '%C3%28=1',
    '%FF=%FF',
    '%E2%80%AE=1',
    '__proto__=1',
    '__proto__=2',
    'constructor=1',
    'x=1',
    'x=2',
    `${LONG_KEY}=1`,
  ].join('&');
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.object({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? '{}'),
    fc.constantFrom('', '{', 'null', '[]', '"x"', '{"a":1,,}', '\u0000', '{"metadata":{"api_key":"x"}}', '{"__proto__":{"x":1}}'),
    fc.constantFrom(
      `{"metadata":${nested(6000)},"settings":${nested(6000)},"params":${nested(6000)}}`,
      `[${'['.repeat(8000)}${']'.repeat(8000)}]`,
    ),
    fc.string({ maxLength: 200 }),
  );

  /** Routes whose success is not JSON; their refusals (>= 400) are JSON {error} like every other route's. */
  const NON_JSON_SUCCESS = new Set([
    'GET /api/metrics',
    'GET /api/events',
    'GET /api/events/stream',
    'GET /api/snapshots/:id/download',
    'GET /api/audit.csv',
  ]);

  function expectWellFormed(route: (typeof routes)[number], path: string, res: RawReply): void {
    const what = `${route.method} ${path.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
    expect(res.status, what).toBeLessThan(500);
    if (res.status >= 400) {
      expect(String(res.headers['content-type']), what).toMatch(/^application\/json/);
      const refusal = JSON.parse(res.text) as { error?: unknown; available?: unknown; reason?: unknown };
      // spec 02 shapes its budget and degraded refusals as {available: false, reason} (core/errors.ts)
      if (refusal.available === false) expect(typeof refusal.reason, what).toBe('string');
      else expect(typeof refusal.error, what).toBe('string');
    } else if (!NON_JSON_SUCCESS.has(`${route.method} ${route.path}`) && res.text !== '') {
      expect(() => JSON.parse(res.text), what).not.toThrow();
    }
  }

  it('answers every route without a 5xx or a dropped connection, JSON {error} for every refusal (fixed seed)', async () => {
    const RUNS = 2;
    const swept = new Set<string>();
    let requests = 0;
    for (const [i, route] of routes.entries()) {
      const fill = (segments: string[]) => {
        let n = 0;
        return route.path.replace(/:[A-Za-z]+/g, () => segments[n++ % segments.length]!);
      };
      const first = `${fill(['%00'])}?${EVERY_HOSTILE_KEY}`;
      expectWellFormed(route, first, await send(route.method, first, { headers: auth, body: route.method === 'GET' ? undefined : '{}' }));
      requests++;
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: 4, maxLength: 4 }),
          fc.option(query, { nil: undefined }),
          body,
          async (segments, q, payload) => {
            const path = fill(segments) + (q ? `?${q}` : '');
            const res = await send(route.method, path, { headers: auth, body: route.method === 'GET' ? undefined : payload });
            requests++;
            expectWellFormed(route, path, res);
          },
        ),
        { numRuns: RUNS, seed: 4200 + i, endOnFailure: true },
      );
      swept.add(`${route.method} ${route.path}`);
    }
    expect(swept.size).toBe(new Set(routes.map((r) => `${r.method} ${r.path}`)).size);
    expect(requests).toBe(routes.length * (RUNS + 1));
    // about 30 s on a quiet machine; the bound leaves room for a loaded CI runner
  }, 300_000);
});
