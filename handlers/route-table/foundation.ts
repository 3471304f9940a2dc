import { agentRead } from '../../core/auth/agent-rules';
import type { Route } from './route';

/** Health, auth and projects (the foundation issue). */
export const foundationRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/health', handler: 'health/get-health', public: true },
  { method: 'GET', path: '/api/auth/self', handler: 'auth/get-auth-self', public: true },
  { method: 'POST', path: '/api/agent-tokens', handler: 'agent-tokens/create-agent-token' },
  { method: 'GET', path: '/api/agent-tokens', handler: 'agent-tokens/list-agent-tokens' },
  { method: 'DELETE', path: '/api/agent-tokens/:id', handler: 'agent-tokens/revoke-agent-token' },
  { method: 'GET', path: '/api/stats', handler: 'health/get-stats' },
  { method: 'GET', path: '/api/health-status', handler: 'health/get-health-status', agent: agentRead },
  { method: 'GET', path: '/api/routes', handler: 'health/list-routes', agent: agentRead },
  { method: 'GET', path: '/api/metrics', handler: 'health/get-metrics' },
  { method: 'GET', path: '/api/openapi.json', handler: 'health/get-openapi', agent: agentRead },

  { method: 'GET', path: '/api/projects', handler: 'projects/list-projects', agent: agentRead },
  { method: 'POST', path: '/api/projects', handler: 'projects/create-project' },
  { method: 'GET', path: '/api/projects/default', handler: 'projects/get-default-project', agent: agentRead },
  { method: 'GET', path: '/api/projects/:id', handler: 'projects/get-project', agent: agentRead },
  { method: 'PATCH', path: '/api/projects/:id', handler: 'projects/update-project' },
  { method: 'DELETE', path: '/api/projects/:id', handler: 'projects/delete-project' },
];
