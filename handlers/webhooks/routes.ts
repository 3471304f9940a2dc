import * as z from 'zod';
import {
  createWebhookSchema,
  createdWebhookSchema,
  deliveriesQuerySchema,
  deliverySchema,
  updateWebhookSchema,
  webhookSchema,
} from '../../core/webhooks/webhooks';
import type { Route } from '../route';

/** Webhooks and their delivery log. */
export const routes: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/webhooks',
    handler: 'webhooks/create-webhook',
    success: [201],
    body: createWebhookSchema,
    response: createdWebhookSchema,
  },
  { method: 'GET', path: '/api/webhooks', handler: 'webhooks/list-webhooks', response: z.object({ webhooks: z.array(webhookSchema) }) },
  {
    method: 'POST',
    path: '/api/webhooks/deliver',
    handler: 'webhooks/deliver-webhooks',
    response: z.object({ enqueued: z.number().int(), attempted: z.number().int(), delivered: z.number().int(), failed: z.number().int() }),
  },
  { method: 'GET', path: '/api/webhooks/:id', handler: 'webhooks/get-webhook', response: webhookSchema },
  { method: 'PATCH', path: '/api/webhooks/:id', handler: 'webhooks/update-webhook', body: updateWebhookSchema, response: webhookSchema },
  {
    method: 'DELETE',
    path: '/api/webhooks/:id',
    handler: 'webhooks/delete-webhook',
    response: z.object({ deleted: z.literal(true), id: z.string() }),
  },
  {
    method: 'GET',
    path: '/api/webhooks/:id/deliveries',
    handler: 'webhooks/list-webhook-deliveries',
    query: deliveriesQuerySchema,
    response: z.object({ deliveries: z.array(deliverySchema) }),
  },
  { method: 'POST', path: '/api/webhooks/:id/test', handler: 'webhooks/test-webhook', response: deliverySchema },
];
