import type { operations } from '../../mcp/task-server-paths';
import { api, apiBase, expectData, undescribed } from './api';
import type { Topic } from './queries';

/** GET /api/agents/roster (docs/console-api.md): every agent with liveness, live runs against its cap, dispatch pause and billing. */
export type Roster = operations['agentsListAgentRoster']['responses'][200]['content']['application/json'];
export type RosterAgent = Roster['agents'][number];
export type BillingMode = NonNullable<RosterAgent['billing']>;

/** GET /api/agent-tokens: every token, newest first, never the token itself. */
export type AgentToken = operations['agentTokensListAgentTokens']['responses'][200]['content']['application/json']['tokens'][number];
export type TokenScope = AgentToken['scopes'][number];
/** POST /api/agent-tokens's answer: the description and, this once, the token. */
export type CreatedToken = operations['agentTokensCreateAgentToken']['responses'][201]['content']['application/json'];

export const agentTopics: readonly Topic[] = ['agents', 'runs'];
export const ROSTER_KEY = 'agents:roster';
export const TOKENS_KEY = 'agents:tokens';

export const loadRoster = (): Promise<Roster> => expectData(api().GET('/api/agents/roster'));
export const loadTokens = (): Promise<{ tokens: AgentToken[] }> => expectData(api().GET('/api/agent-tokens'));

/** PUT /api/agents/:agent/limits: `null` removes the cap; the next dispatcher tick obeys it. */
export const setCap = (agent: string, cap: number | null) =>
  expectData(api().PUT('/api/agents/{agent}/limits', { params: { path: { agent } }, body: undescribed({ max_concurrent_runs: cap }) }));

/** PUT /api/agents/:agent/billing: `null` leaves it to the model's price entry. */
export const setBilling = (agent: string, billing: BillingMode | null) =>
  expectData(api().PUT('/api/agents/{agent}/billing', { params: { path: { agent } }, body: undescribed({ billing }) }));

/** Every scope a token may carry, in the order the form offers them (a Record, so a scope the API adds is a compile error here). */
const scopeHelp: Readonly<Record<TokenScope, string>> = {
  agent: 'agent: its own runs, claims, heartbeats and governed actions',
  read: 'read: the reads of the MCP read tools',
};
export const tokenScopes = Object.entries(scopeHelp).map(([scope, help]) => ({ scope: scope as TokenScope, help }));

export interface TokenRequest {
  agent_id: string;
  label?: string;
  /** ISO 8601 with offset. */
  expires_at?: string;
  scopes: TokenScope[];
}

/**
 * POST /api/agent-tokens. The answer holds the token: the caller keeps it in the creation dialog's
 * own state only (never the query cache, a URL or a log), so it is gone once the dialog closes.
 */
export const createToken = (request: TokenRequest): Promise<CreatedToken> => expectData(api().POST('/api/agent-tokens', { body: request }));

/** DELETE /api/agent-tokens/:id: refused from the next request on. */
export const revokeToken = (id: string) => expectData(api().DELETE('/api/agent-tokens/{id}', { params: { path: { id } } }));

/** The task server's URL as an MCP tool server on another process reaches it: the API's origin. */
export const taskServerUrl = () => apiBase() || window.location.origin;

/** The one-line registration of the MCP tool server that acts as this token's agent (docs/mcp.md, Registration). */
export const mcpRegistrationLine = (token: string) =>
  `claude mcp add fleet-dashboard -e DASHBOARD_AUTH_TOKEN=${token} -e TASK_SERVER_URL=${taskServerUrl()} -e RUNTIME_MCP_MUTATIONS=1 -- npx -y fleet-task-server mcp`;
