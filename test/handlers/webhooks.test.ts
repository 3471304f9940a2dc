import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpWebhookTransport } from '../../infra/webhooks/http-webhook-transport';
import { useTestApp } from '../support/use-app';
import { claimedRun, fakeRuntime, fakeTime, templateWithRoute } from './workflow-support';

/** Signed webhooks from the outbox, with retries, order per webhook and a delivery log. */
const app = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_DELIVERY_INTERVAL_MS: '0' } });

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; time: string; payload: Record<string, unknown> };
}

/** A receiver on loopback: answers each request with the next planned status (200 once the plan runs out). */
const received: Received[] = [];
let plan: number[] = [];
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body, json: JSON.parse(body) });
      const status = plan.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'thanks' : `no ${'x'.repeat(2000)}`);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

let clock: ReturnType<typeof fakeTime>;
beforeEach(async () => {
  clock = fakeTime(app, '2026-11-20T12:00:00.000Z');
  fakeRuntime(app);
  received.length = 0;
  plan = [];
  await app.db.query('DELETE FROM webhooks');
});

async function webhook(body: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/webhooks', { body: { url: receiverUrl, events: ['task:changed'], ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret?: string; url: string; events: string[] };
}

async function deliver() {
  const res = await app.call('POST', '/api/webhooks/deliver');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { enqueued: number; attempted: number; delivered: number; failed: number };
}

let projectId: string | undefined;
async function newTask(title: string): Promise<string> {
  projectId ??= (await app.call('POST', '/api/projects', { body: { name: `hooks-${randomUUID()}` } })).body.id as string;
  const res = await app.call('POST', '/api/tasks', { body: { project_id: projectId, title } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const taskIdsOf = (list: Received[]) => list.filter((r) => r.json.type === 'task:changed').map((r) => r.json.payload.taskId);

describe('managing webhooks', () => {
  it('generates a secret shown once, never again nor in the audit trail, and lists, reads, changes and deletes', async () => {
    const created = await webhook({ events: ['task:changed', 'run.failed', 'budget.breached'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      url: receiverUrl,
      events: ['task:changed', 'run.failed', 'budget.breached'],
      active: true,
      failing: false,
    });
    const read = await app.call('GET', `/api/webhooks/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    const listed = await app.call('GET', '/api/webhooks');
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toEqual([created.id]);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);

    const patched = await app.call('PATCH', `/api/webhooks/${created.id}`, {
      body: { events: ['*'], active: false, secret: 'a-new-secret-of-enough-length' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['*'], active: false });
    expect(JSON.stringify(patched.body)).not.toContain('a-new-secret');
    const audit = await app.db.query<{ action: string; text: string }>(
      'SELECT action, row_to_json(a)::text AS text FROM audit_log a WHERE entity_id = $1 ORDER BY id',
      [created.id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['created', 'updated']);
    for (const row of audit.rows) {
      expect(row.text).not.toContain(created.secret!);
      expect(row.text).not.toContain('a-new-secret');
    }
    const snapshots = await app.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM entity_snapshots s WHERE s.state::text LIKE '%' || $1 || '%'`,
      [created.secret],
    );
    expect(snapshots.rows[0]!.n).toBe(0);

    const removed = await app.call('DELETE', `/api/webhooks/${created.id}`);
    expect(removed.body).toEqual({ deleted: true, id: created.id });
    expect((await app.call('GET', `/api/webhooks/${created.id}`)).status).toBe(404);
    expect((await app.call('DELETE', `/api/webhooks/${created.id}`)).status).toBe(404);
    expect((await app.call('GET', '/api/webhooks/not-an-id')).status).toBe(400);
  });

  it('refuses a body it cannot honour with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ url: 'ftp://example.com/x', events: ['task:changed'] }, /url: must be an http or https URL/],
      [{ url: 'not a url', events: ['task:changed'] }, /url/],
      [{ url: receiverUrl, events: [] }, /events: must name at least one event/],
      [{ url: receiverUrl, events: ['task.exploded'] }, /events\.0: must be one of/],
      [{ url: receiverUrl, events: ['task:changed'], secret: 'short' }, /secret: at least 16 characters/],
      [{ url: receiverUrl, events: ['task:changed'], extra: 1 }, /extra/],
      [{ events: ['task:changed'] }, /url/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', '/api/webhooks', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const hook = await webhook();
    expect((await app.call('PATCH', `/api/webhooks/${hook.id}`, { body: {} })).status).toBe(400);
    expect((await app.call('PATCH', `/api/webhooks/${hook.id}`, { body: { url: 'gopher://x' } })).status).toBe(400);
    expect((await app.call('GET', `/api/webhooks/${hook.id}/deliveries?limit=0`)).status).toBe(400);
  });

  it('refuses a loopback or private destination unless WEBHOOK_ALLOW_PRIVATE=1', async () => {
    const allowed = app.ctx.deps.webhooks;
    app.ctx.deps.webhooks = httpWebhookTransport({ timeoutMs: 2000, allowPrivate: false });
    try {
      for (const url of [
        'http://127.0.0.1:9/x',
        'http://10.1.2.3/x',
        'http://[::1]/x',
        'http://192.168.0.10/x',
        'http://169.254.169.254/latest',
        'http://localhost/x',
      ]) {
        const res = await app.call('POST', '/api/webhooks', { body: { url, events: ['task:changed'] } });
        expect(res.status, url).toBe(400);
        expect(res.body.error, url).toMatch(/url: .*(loopback or private|does not resolve)/);
      }
    } finally {
      app.ctx.deps.webhooks = allowed;
    }
  });
});

describe('delivering', () => {
  it('sends committed events signed, in order, and logs each delivery', async () => {
    const hook = await webhook();
    const first = await newTask('first');
    const second = await newTask('second');
    const pass = await deliver();
    expect(pass).toMatchObject({ enqueued: 2, attempted: 2, delivered: 2, failed: 0 });
    expect(taskIdsOf(received)).toEqual([first, second]);
    for (const r of received) {
      const timestamp = String(r.headers['x-webhook-timestamp']);
      const expected = createHmac('sha256', hook.secret!).update(`${timestamp}.${r.body}`).digest('hex');
      expect(r.headers['x-webhook-signature']).toBe(`sha256=${expected}`);
      expect(r.headers['x-webhook-id']).toBe(r.json.id);
      expect(r.headers['x-webhook-event']).toBe('task:changed');
      expect(r.json).toMatchObject({ type: 'task:changed', payload: { action: 'created' } });
      expect(new Date(r.json.time).toISOString()).toBe(r.json.time);
    }
    const log = await app.call('GET', `/api/webhooks/${hook.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.deliveries.map((d: { id: string }) => d.id)).toEqual(received.map((r) => r.json.id).reverse());
    expect(log.body.deliveries[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      response_code: 200,
      response_body: 'thanks',
      next_attempt_at: null,
    });
    // nothing new: a second pass sends nothing again
    expect(await deliver()).toMatchObject({ enqueued: 0, attempted: 0 });
  });

  it('retries a failing receiver with backoff, keeps later events behind it, and delivers on the fourth try', async () => {
    const hook = await webhook();
    plan = [500, 503, 500];
    const first = await newTask('first');
    const second = await newTask('second');
    expect(await deliver()).toMatchObject({ attempted: 1, delivered: 0 });
    // not due yet: nothing is sent before the backoff has passed
    expect(await deliver()).toMatchObject({ attempted: 0 });
    for (let i = 0; i < 2; i++) {
      clock.advance(2 * 3_600_000);
      expect(await deliver()).toMatchObject({ attempted: 1, delivered: 0 });
    }
    clock.advance(2 * 3_600_000);
    expect(await deliver()).toMatchObject({ attempted: 2, delivered: 2 });
    expect(taskIdsOf(received)).toEqual([first, first, first, first, second]);
    const log = (await app.call('GET', `/api/webhooks/${hook.id}/deliveries`)).body.deliveries;
    expect(log[1]).toMatchObject({ status: 'delivered', attempts: 4, response_code: 200, last_error: null });
    expect(log[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('gives up after 24 hours, marks the webhook failing (health-status says so), and recovers with the next delivery', async () => {
    const hook = await webhook();
    plan = Array(50).fill(500);
    await newTask('doomed');
    expect(await deliver()).toMatchObject({ attempted: 1, delivered: 0 });
    const stored = (await app.call('GET', `/api/webhooks/${hook.id}/deliveries`)).body.deliveries[0];
    expect(stored).toMatchObject({ status: 'pending', attempts: 1, response_code: 500, last_error: 'receiver answered 500' });
    expect(stored.response_body.length).toBeLessThanOrEqual(1024);
    clock.advance(24 * 3_600_000 + 1);
    expect(await deliver()).toMatchObject({ attempted: 1, failed: 1 });
    expect((await app.call('GET', `/api/webhooks/${hook.id}`)).body.failing).toBe(true);
    const health = await app.call('GET', '/api/health-status');
    expect(health.body.webhooks).toMatchObject({ healthy: false, status: 'failing', failing: [{ id: hook.id, url: receiverUrl }] });

    plan = [];
    await newTask('fine');
    expect(await deliver()).toMatchObject({ attempted: 1, delivered: 1 });
    expect((await app.call('GET', `/api/webhooks/${hook.id}`)).body.failing).toBe(false);
    expect((await app.call('GET', '/api/health-status')).body.webhooks).toMatchObject({ healthy: true, failing: [] });
  });

  it('never delivers an event of a change that rolled back', async () => {
    await webhook();
    const storage = app.ctx.deps.storage;
    if (storage.mode !== 'database') throw new Error('this test needs the database');
    await expect(
      storage.db.transaction(async (tx) => {
        await app.ctx.deps.events.publish(tx, {
          name: 'task:changed',
          channel: 'events',
          payload: { action: 'created', taskId: 'rolled-back' },
        });
        throw new Error('the change fails');
      }),
    ).rejects.toThrow('the change fails');
    const committed = await newTask('committed');
    await deliver();
    expect(taskIdsOf(received)).toEqual([committed]);
  });

  it('is delivered by the scheduled Lambda too, after its tick', async () => {
    await webhook();
    const task = await newTask('seen by the Lambda');
    const { handler } = await import('../../infra/dispatcher/lambda');
    const result = (await handler()) as { webhooks: { enqueued: number; delivered: number } };
    expect(result.webhooks).toMatchObject({ enqueued: 1, delivered: 1 });
    expect(taskIdsOf(received)).toEqual([task]);
  });

  it('sends derived types to the webhooks that ask for them', async () => {
    await webhook({ events: ['run.failed'] });
    const type = await templateWithRoute(app, { agent: 'writer' });
    const { id, session } = await claimedRun(app, type);
    await newTask('not wanted');
    const failed = await app.call('POST', `/api/workflow-runs/${id}/fail`, { body: { session_id: session, error: 'broke' } });
    expect(failed.status).toBe(200);
    await deliver();
    expect(received.map((r) => [r.json.type, r.json.payload.runId, r.json.payload.status])).toEqual([['run.failed', id, 'failed']]);
  });

  it('delivers each event once when two passes run at once', async () => {
    await webhook();
    const tasks = [await newTask('a'), await newTask('b'), await newTask('c')];
    const passes = await Promise.all([deliver(), deliver(), deliver()]);
    expect(passes.reduce((n, p) => n + p.enqueued, 0)).toBe(3);
    expect(passes.reduce((n, p) => n + p.delivered, 0)).toBe(3);
    expect(taskIdsOf(received)).toEqual(tasks);
  });

  it('tells a webhook which events the outbox pruned before it read them, then goes on', async () => {
    await webhook();
    const lost = await newTask('pruned before delivery');
    // the outbox keeps events 24 hours: a webhook that fell further behind finds them gone
    await app.db.query('SELECT event_outbox_sequence(1000)');
    const { rows } = await app.db.query<{ p: string }>(`SELECT max(position)::text AS p FROM event_outbox`);
    await app.db.query('DELETE FROM event_outbox WHERE position <= $1', [rows[0]!.p]);
    await app.db.query('UPDATE event_outbox_watermark SET pruned_through = greatest(pruned_through, $1::bigint)', [rows[0]!.p]);
    const kept = await newTask('after the pruning');
    await deliver();
    expect(received.map((r) => r.json.type)).toEqual(['webhook.events_missed', 'task:changed']);
    expect(received[0]!.json.payload).toMatchObject({ through: rows[0]!.p, reason: expect.stringContaining('pruned') });
    expect(taskIdsOf(received)).toEqual([kept]);
    expect(taskIdsOf(received)).not.toContain(lost);
    // said once: the next pass has nothing to say
    expect(await deliver()).toMatchObject({ enqueued: 0, attempted: 0 });
  });

  it('keeps done deliveries in the log for 7 days after they were made, and a pending one until it is done', async () => {
    const hook = await webhook();
    await newTask('delivered at once');
    await deliver();
    clock.advance(6 * 24 * 3_600_000);
    plan = Array(50).fill(500);
    await newTask('keeps failing');
    await deliver();
    clock.advance(24 * 3_600_000 + 1);
    await deliver();
    const log = (await app.call('GET', `/api/webhooks/${hook.id}/deliveries`)).body.deliveries as Array<{
      status: string;
      event_type: string;
    }>;
    // the delivered one (7 days old) is gone; the failed one (1 day old) stays
    expect(log.map((d) => d.status)).toEqual(['failed']);
    clock.advance(6 * 24 * 3_600_000);
    await deliver();
    expect((await app.call('GET', `/api/webhooks/${hook.id}/deliveries`)).body.deliveries).toEqual([]);
  });

  it('sends a test event on demand and answers its delivery; a failed test holds nothing back', async () => {
    const hook = await webhook();
    const ok = await app.call('POST', `/api/webhooks/${hook.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ event_type: 'webhook.test', status: 'delivered', response_code: 200, position: null });
    expect(received.map((r) => r.json.type)).toEqual(['webhook.test']);
    plan = [500];
    const failed = await app.call('POST', `/api/webhooks/${hook.id}/test`);
    expect(failed.body).toMatchObject({ status: 'failed', response_code: 500 });
    const task = await newTask('after the test');
    await deliver();
    expect(taskIdsOf(received)).toEqual([task]);
    expect((await app.call('POST', `/api/webhooks/${randomUUID()}/test`)).status).toBe(404);
  });
});
