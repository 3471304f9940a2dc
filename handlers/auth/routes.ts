import * as z from 'zod';
import type { Route } from '../route';

const authSelfSchema = z.looseObject({
  authenticated: z.boolean(),
  mode: z.literal('token'),
  actor: z.string(),
  role: z.string(),
  user: z.object({ name: z.string(), role: z.string() }),
  tokenRequired: z.boolean(),
  supportedSchemes: z.array(z.string()),
  publicRoutes: z.array(z.string()),
  capabilities: z.record(z.string(), z.boolean()),
});

/** What the caller is, and how this server authenticates (spec 01 Authentication). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/auth/self', handler: 'auth/get-auth-self', public: true, response: authSelfSchema },
];
