import * as z from 'zod';
import { agentTokenSchema, createAgentTokenSchema, createdAgentTokenSchema } from '../../core/auth/agent-tokens';
import type { Route } from '../route';

/** Agent tokens, the operator's to make, list and revoke (docs/api/agent-tokens.md). */
export const routes: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/agent-tokens',
    handler: 'agent-tokens/create-agent-token',
    success: [201],
    body: createAgentTokenSchema,
    response: createdAgentTokenSchema,
  },
  {
    method: 'GET',
    path: '/api/agent-tokens',
    handler: 'agent-tokens/list-agent-tokens',
    response: z.object({ tokens: z.array(agentTokenSchema) }),
  },
  { method: 'DELETE', path: '/api/agent-tokens/:id', handler: 'agent-tokens/revoke-agent-token', response: agentTokenSchema },
];
