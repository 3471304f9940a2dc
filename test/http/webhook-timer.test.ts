import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookTimer } from '../../infra/dispatcher/timer';
import { useTestApp } from '../support/use-app';

/*
 * The local runner delivers webhooks on its own timer (WEBHOOK_DELIVERY_INTERVAL_MS),
 * the same pass as POST /api/webhooks/deliver and the scheduled Lambda. Nothing here calls the pass:
 * a change made through the API reaches the receiver because the timer ran it.
 */
const app = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_DELIVERY_INTERVAL_MS: '0' } });

let receiver: http.Server;
let receiverUrl: string;
const bodies: Array<{ type: string; payload: Record<string, unknown> }> = [];
let onDelivery: (() => void) | undefined;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200);
      res.end('ok');
      onDelivery?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('the runner webhook timer', () => {
  it('delivers a committed change without anyone asking, and stops cleanly', async () => {
    const hook = await app.call('POST', '/api/webhooks', { body: { url: receiverUrl, events: ['task:changed'] } });
    expect(hook.status).toBe(201);
    const project = await app.call('POST', '/api/projects', { body: { name: 'timer hooks' } });
    const task = await app.call('POST', '/api/tasks', { body: { project_id: project.body.id, title: 'deliver me' } });
    expect(task.status).toBe(201);

    const delivered = new Promise<void>((resolve) => (onDelivery = resolve));
    const timer = startWebhookTimer(app.ctx, 10);
    try {
      await delivered;
    } finally {
      await timer.stop();
    }
    expect(bodies.some((b) => b.type === 'task:changed' && b.payload.taskId === task.body.id)).toBe(true);
    const log = await app.call('GET', `/api/webhooks/${hook.body.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).toContain('delivered');
  });
});
