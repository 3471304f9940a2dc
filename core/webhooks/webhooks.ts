import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { NotFoundError, ValidationError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { parseId, parseInput } from '../validation';
import { webhookEventTypes } from './event-types';

/**
 * Webhooks: the operator's subscriptions to events, delivered signed from the outbox
 * (core/webhooks/delivery.ts). The secret signs each delivery; it is answered once (at creation,
 * when the server generated it) and never again, nor written to the audit trail or a snapshot.
 */
export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  /** A delivery gave up after its retries; cleared by the next delivery that succeeds. */
  failing: z.boolean(),
  created_by: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema.extend({
  /** Present when the server generated the secret: shown in this answer only. */
  secret: z.string().optional(),
});

export const webhookColumns = 'id, url, events, active, failing, created_by, created_at, updated_at';

const urlSchema = z
  .string({ message: 'must be a URL' })
  .trim()
  .max(2048, 'at most 2048 characters')
  .refine((u) => URL.canParse(u) && ['http:', 'https:'].includes(new URL(u).protocol), { message: 'must be an http or https URL' });
const eventsSchema = z
  .array(z.enum(webhookEventTypes as [string, ...string[]], { message: `must be one of ${webhookEventTypes.join(', ')}` }))
  .min(1, 'must name at least one event')
  .max(webhookEventTypes.length)
  .transform((events) => [...new Set(events)]);
const secretSchema = z.string().min(16, 'at least 16 characters').max(200, 'at most 200 characters');
const actorSchema = z.string().trim().min(1, 'must not be empty').max(200).default(OPERATOR_ACTOR);

export const createWebhookSchema = z.strictObject({
  url: urlSchema,
  events: eventsSchema,
  secret: secretSchema.optional(),
  active: z.boolean().default(true),
  actor: actorSchema,
});
export const updateWebhookSchema = z
  .strictObject({
    url: urlSchema.optional(),
    events: eventsSchema.optional(),
    secret: secretSchema.optional(),
    active: z.boolean().optional(),
    actor: actorSchema,
  })
  .refine((p) => Object.keys(p).some((k) => k !== 'actor'), { message: 'name at least one of url, events, secret, active' });

async function assertDestination(deps: Pick<Deps, 'webhooks'>, url: string): Promise<void> {
  const refused = await deps.webhooks.refusedDestination(url);
  if (refused) throw new ValidationError(`url: ${refused}`, [{ path: 'url', message: refused }]);
}

/** The stream position new events will follow: a webhook sees what commits after it starts listening. */
async function currentPosition(db: Db): Promise<number> {
  const { rows } = await db.query<{ p: number }>('SELECT last_position AS p FROM event_outbox_watermark');
  return rows[0]?.p ?? 0;
}

function webhookEvent(action: string, id: string) {
  return { name: 'webhook:changed', channel: 'events' as const, payload: { action, webhookId: id } };
}

/** POST /api/webhooks {url, events, secret?, active?} */
export async function createWebhook(deps: Deps, body: unknown) {
  const input = parseInput(createWebhookSchema, body ?? {}, 'webhook');
  await assertDestination(deps, input.url);
  const secret = input.secret ?? `whsec_${randomBytes(32).toString('base64url')}`;
  const id = deps.ids.uuid();
  const now = deps.clock.now();
  return requireDb(deps.storage).transaction(async (tx) => {
    const { rows } = await tx.query<Webhook>(
      `INSERT INTO webhooks (id, url, events, secret, active, cursor, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${webhookColumns}`,
      [id, input.url, input.events, secret, input.active, await currentPosition(tx), input.actor, now],
    );
    // webhookColumns leave the secret out: the audit row and state snapshot never hold it
    const webhook = rows[0]!;
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'created',
      entityType: 'webhook',
      entityId: id,
      newValue: webhook,
      event: webhookEvent('created', id),
    });
    return input.secret === undefined ? { ...webhook, secret } : webhook;
  });
}

/** GET /api/webhooks */
export async function listWebhooks(deps: Pick<Deps, 'storage'>) {
  const { rows } = await requireDb(deps.storage).query<Webhook>(`SELECT ${webhookColumns} FROM webhooks ORDER BY created_at, id`);
  return { webhooks: rows };
}

export async function findWebhook(db: Db, id: string, lock = false): Promise<Webhook> {
  const { rows } = await db.query<Webhook>(`SELECT ${webhookColumns} FROM webhooks WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  if (!rows[0]) throw new NotFoundError(`webhook ${id} not found`);
  return rows[0];
}

/** GET /api/webhooks/:id */
export async function getWebhook(deps: Pick<Deps, 'storage'>, rawId: unknown): Promise<Webhook> {
  return findWebhook(requireDb(deps.storage), parseId(rawId));
}

/**
 * PATCH /api/webhooks/:id {url?, events?, secret?, active?}. Turning a webhook back on starts it
 * at the current position: it does not replay what happened while it was off.
 */
export async function updateWebhook(deps: Deps, rawId: unknown, body: unknown): Promise<Webhook> {
  const id = parseId(rawId);
  const { actor, ...patch } = parseInput(updateWebhookSchema, body ?? {}, 'webhook update');
  if (patch.url !== undefined) await assertDestination(deps, patch.url);
  return requireDb(deps.storage).transaction(async (tx) => {
    const before = await findWebhook(tx, id, true);
    const set: Record<string, unknown> = { ...patch };
    if (patch.active === true && !before.active) set.cursor = await currentPosition(tx);
    const after = (await patchRow<Webhook>(tx, { table: 'webhooks', key: id, set, at: deps.clock.now(), returning: webhookColumns }))!;
    await recordChange(deps, tx, {
      actor,
      action: 'updated',
      entityType: 'webhook',
      entityId: id,
      oldValue: before,
      newValue: { ...after, ...(patch.secret !== undefined ? { secret_rotated: true } : {}) },
      event: webhookEvent('updated', id),
    });
    return after;
  });
}

/** DELETE /api/webhooks/:id: the webhook and its delivery log. */
export async function deleteWebhook(deps: Deps, rawId: unknown) {
  const id = parseId(rawId);
  return requireDb(deps.storage).transaction(async (tx) => {
    const before = await findWebhook(tx, id, true);
    await tx.query('DELETE FROM webhooks WHERE id = $1', [id]);
    await recordChange(deps, tx, {
      actor: OPERATOR_ACTOR,
      action: 'deleted',
      entityType: 'webhook',
      entityId: id,
      oldValue: before,
      event: webhookEvent('deleted', id),
    });
    return { deleted: true, id };
  });
}

export const deliverySchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_type: z.string(),
  /** The outbox position (the SSE id) of the event; null for a test delivery. */
  position: z.number().int().nullable(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  response_code: z.number().int().nullable(),
  /** The receiver's answer, at most 1 KB of it. */
  response_body: z.string().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.date().nullable(),
  event_at: z.date(),
  delivered_at: z.date().nullable(),
  created_at: z.date(),
});
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveryColumns =
  'id, webhook_id, event_type, position, status, attempts, response_code, response_body, last_error, next_attempt_at, event_at, delivered_at, created_at';

export const deliveriesQuerySchema = z
  .object({ limit: z.coerce.number({ message: 'must be a whole number' }).int().min(1).max(500).default(100) })
  .loose();

/** GET /api/webhooks/:id/deliveries?limit=: newest first. */
export async function listDeliveries(deps: Pick<Deps, 'storage'>, rawId: unknown, query: unknown) {
  const id = parseId(rawId);
  const { limit } = parseQuery(deliveriesQuerySchema, query);
  const db = requireDb(deps.storage);
  await findWebhook(db, id);
  const { rows } = await db.query<Delivery>(
    `SELECT ${deliveryColumns} FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq DESC LIMIT $2`,
    [id, limit],
  );
  return { deliveries: rows };
}
