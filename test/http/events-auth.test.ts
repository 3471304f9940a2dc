import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboxEventBus } from '../../infra/events/outbox-event-bus';
import { logger } from '../../infra/logger';
import { useTestApp } from '../support/use-app';
import { openRaw, startStreamRunner, watch, type StreamRunner } from './stream-support';

const TOKEN = 'stream-secret-4f1c9a';
const app = useTestApp({ env: { DASHBOARD_AUTH_TOKEN: TOKEN } });
let server: StreamRunner;

beforeAll(async () => {
  server = await startStreamRunner(app);
});
afterAll(async () => {
  await server?.close();
});

describe('stream authentication (spec 01 Authentication 6)', () => {
  for (const path of ['/api/events', '/api/events/stream']) {
    it(`refuses ${path} with 401 JSON without a token, with a wrong one in the header or the query`, async () => {
      for (const [suffix, headers] of [
        ['', {}],
        ['', { authorization: 'Bearer wrong' }],
        ['?token=wrong', {}],
        ['', { authorization: TOKEN }], // no Bearer scheme
      ] as Array<[string, Record<string, string>]>) {
        const res = await fetch(`${server.url}${path}${suffix}`, { headers });
        expect(res.status, `${suffix} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(((await res.json()) as { error: string }).error).toMatch(/token/);
      }
    });

    it(`opens ${path} with the Authorization header, or with the legacy token query parameter`, async () => {
      const byHeader = await openRaw(`${server.url}${path}`, { authorization: `Bearer ${TOKEN}` });
      const byQuery = await openRaw(`${server.url}${path}?token=${TOKEN}`);
      try {
        expect([byHeader.status, byQuery.status]).toEqual([200, 200]);
        await Promise.all([byHeader.waitForComments(1), byQuery.waitForComments(1)]);
        expect(byQuery.comments[0]).toBe('connected');
      } finally {
        byHeader.close();
        byQuery.close();
      }
    });
  }

  it('prefers the header: a wrong header is refused even with the right query token', async () => {
    const res = await fetch(`${server.url}/api/events?token=${TOKEN}`, { headers: { authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
  });

  it('delivers events to an EventSource that authenticates with the header through a custom fetch', async () => {
    const stream = watch(`${server.url}/api/events`, ['project:changed'], { headers: { authorization: `Bearer ${TOKEN}` } });
    try {
      await stream.opened;
      await outboxEventBus.publish(app.db, { name: 'project:changed', payload: { action: 'updated', projectId: 'p' }, channel: 'events' });
      expect((await stream.waitFor(() => true)).data).toEqual({ action: 'updated', projectId: 'p' });
    } finally {
      stream.close();
    }
  });

  it('an EventSource without a token fails with 401 and does not retry', async () => {
    const stream = watch(`${server.url}/api/events`, []);
    await expect(stream.opened).rejects.toThrow();
    expect(stream.errors[0]?.code).toBe(401);
    expect(stream.source.readyState).toBe(stream.source.CLOSED);
    stream.close();
  });

  it('never logs the token query parameter', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    logger().setLogLevel('INFO');
    try {
      const raw = await openRaw(`${server.url}/api/events?token=${TOKEN}`);
      await raw.waitForComments(1);
      raw.close();
      await raw.ended;
      await fetch(`${server.url}/api/events/stream?token=${TOKEN}x`);
      for (let i = 0; i < 50 && !lines.some((l) => l.includes('stream closed')); i++) await new Promise((r) => setImmediate(r));
    } finally {
      logger().setLogLevel('SILENT');
      spy.mockRestore();
    }
    const log = lines.join('');
    expect(log).toContain('stream opened');
    expect(log).toContain('/api/events');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain('token=');
  });
});
