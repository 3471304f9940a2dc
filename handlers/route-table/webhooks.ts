import type { Route } from './route';

/** Webhooks and their delivery log. */
export const webhookRoutes: readonly Route[] = [
  { method: 'POST', path: '/api/webhooks', handler: 'webhooks/create-webhook' },
  { method: 'GET', path: '/api/webhooks', handler: 'webhooks/list-webhooks' },
  { method: 'POST', path: '/api/webhooks/deliver', handler: 'webhooks/deliver-webhooks' },
  { method: 'GET', path: '/api/webhooks/:id', handler: 'webhooks/get-webhook' },
  { method: 'PATCH', path: '/api/webhooks/:id', handler: 'webhooks/update-webhook' },
  { method: 'DELETE', path: '/api/webhooks/:id', handler: 'webhooks/delete-webhook' },
  { method: 'GET', path: '/api/webhooks/:id/deliveries', handler: 'webhooks/list-webhook-deliveries' },
  { method: 'POST', path: '/api/webhooks/:id/test', handler: 'webhooks/test-webhook' },
];
