import { createHmac } from 'node:crypto';
import { NotFoundError } from '../errors';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseId } from '../validation';
import { webhookTypesOf } from './event-types';
import { deliveryColumns, type Delivery } from './webhooks';

/**
 * Delivering webhooks, in two steps any number of processes may run at once:
 * 1. enqueue: each active webhook reads the outbox after its cursor (stream positions: committed
 *    events only, no gaps) and turns the events it wants into deliveries, in position order;
 * 2. deliver: a process leases one webhook at a time and sends its pending deliveries in order;
 *    a failure is retried with exponential backoff and jitter, and the later deliveries wait behind
 *    it (order per webhook), until 24 hours after the event: then it is failed, the webhook marked
 *    failing, and the queue moves on. At least once: a receiver dedupes by X-Webhook-Id.
 */
const ENQUEUE_BATCH = 1000;
const DELIVERIES_PER_LEASE = 50;
const LEASE_MS = 60_000;
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;
const FIRST_RETRY_MS = 10_000;
const LONGEST_RETRY_MS = 3_600_000;
const RESPONSE_BODY_LIMIT = 1024;

/** The wait before the next try after `attempts` failed ones: doubling from 10 s to at most 1 h, ±20% jitter. */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_MS);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The signature a receiver recomputes: HMAC-SHA256 with the webhook's secret over `<timestamp>.<body>`, hex. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** Sent to every webhook, whatever it subscribes to, when events it would have read were pruned first. */
export const MISSED_EVENTS = 'webhook.events_missed';

interface OutboxEvent {
  position: string;
  name: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

/** Step 1: moves every active webhook's cursor over up to ENQUEUE_BATCH outbox events; answers the deliveries made. */
export async function enqueueWebhookEvents(deps: Pick<Deps, 'ids' | 'clock'>, db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    // a webhook another process is enqueuing for is skipped, never enqueued twice
    // stream positions are bigint: read as text and compared as BigInt, never rounded through a double
    const { rows } = await tx.query<{ id: string; events: string[]; cursor: string }>(
      'SELECT id, events, cursor::text AS cursor FROM webhooks WHERE active ORDER BY id FOR UPDATE SKIP LOCKED',
    );
    if (rows.length === 0) return 0;
    const hooks = rows.map((h) => ({ ...h, cursor: BigInt(h.cursor) }));
    const from = hooks.reduce((min, h) => (h.cursor < min ? h.cursor : min), hooks[0]!.cursor);
    const { rows: events } = await tx.query<OutboxEvent>(
      'SELECT position::text AS position, name, payload, created_at FROM event_outbox WHERE position > $1 ORDER BY position LIMIT $2',
      [from.toString(), ENQUEUE_BATCH],
    );
    const { rows: mark } = await tx.query<{ pruned: string }>('SELECT pruned_through::text AS pruned FROM event_outbox_watermark');
    // events the outbox pruned before a webhook read them (it was behind for longer than the outbox keeps them)
    const pruned = BigInt(mark[0]?.pruned ?? '0');
    if (events.length === 0 && hooks.every((h) => h.cursor >= pruned)) return 0;
    const now = deps.clock.now();
    const deliveries: Array<Record<string, unknown>> = [];
    for (const hook of hooks) {
      if (hook.cursor < pruned) {
        // the receiver learns which positions it will never get, before what follows them
        const payload = {
          from: (hook.cursor + 1n).toString(),
          through: pruned.toString(),
          reason: 'the outbox pruned these events before they were delivered',
        };
        deliveries.push({ id: deps.ids.uuid(), webhook_id: hook.id, position: null, event_type: MISSED_EVENTS, payload, event_at: now });
      }
      for (const event of events) {
        if (BigInt(event.position) <= hook.cursor) continue;
        for (const type of webhookTypesOf(event, hook.events)) {
          deliveries.push({
            id: deps.ids.uuid(),
            webhook_id: hook.id,
            position: event.position,
            event_type: type,
            payload: event.payload,
            event_at: event.created_at,
          });
        }
      }
    }
    if (deliveries.length > 0) {
      // ORDER BY n: seq follows the order built here (position order per webhook)
      await tx.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, position, event_type, payload, event_at, next_attempt_at, created_at, updated_at)
         SELECT d.id, d.webhook_id, d.position, d.event_type, d.payload, d.event_at, $2, $2, $2
           FROM jsonb_to_recordset($1::jsonb) AS d(n int, id uuid, webhook_id uuid, position bigint, event_type text, payload jsonb, event_at timestamptz)
          ORDER BY d.n`,
        [JSON.stringify(deliveries.map((d, n) => ({ n, ...d }))), now],
      );
    }
    const through = events.length > 0 ? BigInt(events[events.length - 1]!.position) : pruned;
    await tx.query('UPDATE webhooks SET cursor = greatest(cursor, $2::bigint) WHERE id = ANY($1::uuid[])', [
      hooks.map((h) => h.id),
      (through > pruned ? through : pruned).toString(),
    ]);
    return deliveries.length;
  });
}

interface LeasedWebhook {
  id: string;
  url: string;
  secret: string;
}

export interface DeliveryTotals {
  attempted: number;
  delivered: number;
  failed: number;
}

/** Sends one delivery and records the outcome; answers whether the queue behind it may go on. */
async function attempt(
  deps: Pick<Deps, 'clock' | 'webhooks'>,
  db: Db,
  hook: LeasedWebhook,
  delivery: Delivery & { payload: unknown },
  totals: DeliveryTotals,
): Promise<boolean> {
  const body = JSON.stringify({
    id: delivery.id,
    type: delivery.event_type,
    time: delivery.event_at.toISOString(),
    payload: delivery.payload,
  });
  const sentAt = deps.clock.now();
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const response = await deps.webhooks.send({
    url: hook.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'fleet-task-server-webhooks/1',
      'x-webhook-id': delivery.id,
      'x-webhook-event': delivery.event_type,
      'x-webhook-timestamp': timestamp,
      'x-webhook-signature': `sha256=${webhookSignature(hook.secret, timestamp, body)}`,
    },
    body,
  });
  totals.attempted++;
  const now = deps.clock.now();
  const delivered = response.ok && response.status >= 200 && response.status < 300;
  const code = response.ok ? response.status : null;
  const answer = response.ok ? response.body.slice(0, RESPONSE_BODY_LIMIT) : null;
  const error = delivered ? null : response.ok ? `receiver answered ${response.status}` : response.error;
  const givesUp = !delivered && now.getTime() - delivery.created_at.getTime() >= GIVE_UP_AFTER_MS;
  const status = delivered ? 'delivered' : givesUp ? 'failed' : 'pending';
  await db.query(
    `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, response_code = $3, response_body = $4, last_error = $5,
            next_attempt_at = $6, delivered_at = $7, updated_at = $8 WHERE id = $1`,
    [
      delivery.id,
      status,
      code,
      answer,
      error,
      status === 'pending' ? new Date(now.getTime() + retryDelayMs(delivery.attempts + 1)) : null,
      delivered ? now : null,
      now,
    ],
  );
  if (delivered) {
    totals.delivered++;
    await db.query('UPDATE webhooks SET failing = false WHERE id = $1 AND failing', [hook.id]);
  } else if (givesUp) {
    totals.failed++;
    await db.query('UPDATE webhooks SET failing = true WHERE id = $1 AND NOT failing', [hook.id]);
  }
  return status !== 'pending';
}

/** Step 2: leases webhooks whose oldest pending delivery is due, one at a time, and sends their queues in order. */
export async function deliverDueWebhooks(deps: Pick<Deps, 'clock' | 'webhooks'>, db: Db, maxWebhooks = 20): Promise<DeliveryTotals> {
  const totals: DeliveryTotals = { attempted: 0, delivered: 0, failed: 0 };
  const visited: string[] = [];
  for (let i = 0; i < maxWebhooks; i++) {
    const now = deps.clock.now();
    const hook = await db.transaction(async (tx) => {
      const { rows } = await tx.query<LeasedWebhook>(
        `SELECT w.id, w.url, w.secret FROM webhooks w
          WHERE w.active AND (w.lease_until IS NULL OR w.lease_until <= $1) AND NOT (w.id = ANY($2::uuid[]))
            AND (SELECT d.next_attempt_at FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending' ORDER BY d.seq LIMIT 1) <= $1
          ORDER BY w.id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [now, visited],
      );
      if (!rows[0]) return undefined;
      await tx.query('UPDATE webhooks SET lease_until = $2 WHERE id = $1', [rows[0].id, new Date(now.getTime() + LEASE_MS)]);
      return rows[0];
    });
    if (!hook) break;
    visited.push(hook.id);
    try {
      const { rows } = await db.query<Delivery & { payload: unknown }>(
        `SELECT ${deliveryColumns}, payload FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' ORDER BY seq LIMIT ${DELIVERIES_PER_LEASE}`,
        [hook.id],
      );
      for (const delivery of rows) {
        const now = deps.clock.now();
        if (delivery.next_attempt_at && delivery.next_attempt_at.getTime() > now.getTime()) break;
        // the lease outlives each attempt (a slow receiver takes up to WEBHOOK_TIMEOUT_MS): no other process takes the queue meanwhile
        await db.query('UPDATE webhooks SET lease_until = $2 WHERE id = $1', [hook.id, new Date(now.getTime() + LEASE_MS)]);
        if (!(await attempt(deps, db, hook, delivery, totals))) break;
      }
    } finally {
      await db.query('UPDATE webhooks SET lease_until = NULL WHERE id = $1', [hook.id]);
    }
  }
  return totals;
}

/** One pass of both steps: what the runner's timer, the scheduled Lambda and POST /api/webhooks/deliver run. */
export async function runWebhookDeliveries(deps: Pick<Deps, 'clock' | 'ids' | 'webhooks' | 'storage'>) {
  const db = requireDb(deps.storage);
  // committed events get their positions now (migration 0900's sequencer, in its own short transaction),
  // so a pass right after a change sends it without waiting for the writer's or a listener's pass
  await db.query('SELECT event_outbox_sequence($1)', [ENQUEUE_BATCH * 10]);
  let enqueued = 0;
  // catch up with a backlog in batches, so one pass sends what is there
  for (let i = 0; i < 10; i++) {
    const made = await enqueueWebhookEvents(deps, db);
    enqueued += made;
    if (made === 0) break;
  }
  const totals = await deliverDueWebhooks(deps, db);
  await pruneDeliveryLog(deps, db);
  return { enqueued, ...totals };
}

/** How long after it was made the log keeps a delivery that is done (delivered or failed). */
export const DELIVERY_LOG_RETENTION_MS = 7 * 24 * 3_600_000;

/** Drops done deliveries past the retention, a bounded batch per pass; pending ones are never dropped. */
async function pruneDeliveryLog(deps: Pick<Deps, 'clock'>, db: Db): Promise<void> {
  await db.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1 LIMIT 1000 FOR UPDATE SKIP LOCKED)`,
    [new Date(deps.clock.now().getTime() - DELIVERY_LOG_RETENTION_MS)],
  );
}

/**
 * POST /api/webhooks/:id/test: a `webhook.test` event sent now, ahead of the queue, answered with
 * its delivery (status, response code, the receiver's answer). Not retried when it fails.
 */
export async function testWebhook(deps: Pick<Deps, 'clock' | 'ids' | 'webhooks' | 'storage'>, rawId: unknown) {
  const id = parseId(rawId);
  const db = requireDb(deps.storage);
  const { rows: hooks } = await db.query<LeasedWebhook>('SELECT id, url, secret FROM webhooks WHERE id = $1', [id]);
  if (!hooks[0]) throw new NotFoundError(`webhook ${id} not found`);
  const now = deps.clock.now();
  const payload = { webhook_id: id, message: 'a test delivery from the task server' };
  const { rows } = await db.query<Delivery & { payload: unknown }>(
    // never due for a delivery pass (it is sent here), so no pass sends it too
    `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, event_at, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, 'webhook.test', $3, $4, 'infinity', $4, $4) RETURNING ${deliveryColumns}, payload`,
    [deps.ids.uuid(), id, JSON.stringify(payload), now],
  );
  const delivery = rows[0]!;
  const delivered = await attempt(deps, db, hooks[0], delivery, { attempted: 0, delivered: 0, failed: 0 });
  // a test is one try: a failed one is closed, so it never holds the real queue behind it
  const { rows: after } = await db.query<Delivery>(
    `UPDATE webhook_deliveries SET status = CASE WHEN $2 THEN status ELSE 'failed' END, next_attempt_at = CASE WHEN $2 THEN next_attempt_at END
      WHERE id = $1 RETURNING ${deliveryColumns}`,
    [delivery.id, delivered],
  );
  return after[0]!;
}
