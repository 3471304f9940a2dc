import * as z from 'zod';
import { recordChange } from '../audit/record-change';
import type { BillingMode } from '../ports';
import { billingModes, billingSchema } from '../costs/pricing';
import type { Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { actorSchema, agentIdSchema } from '../workflows/run';

/**
 * An agent's billing mode (metered or subscription), kept on its agent profile (created when the agent has none).
 * A subscription agent's runs keep their list price as a shadow cost that billed totals leave out;
 * the mode applies to usage reported from now on (POST /api/costs/reprice applies it to a past window).
 */
export const agentBillingSchema = z.object({ agent_id: z.string(), billing: z.enum(billingModes).nullable() });
export type AgentBilling = z.infer<typeof agentBillingSchema>;

const putBillingSchema = z.strictObject({
  /** null: the agent has no mode of its own; its model's price entry decides (else metered). */
  billing: billingSchema.nullable(),
  actor: actorSchema,
});

/** PUT /api/agents/:agent/billing {billing, actor?} */
export async function putAgentBilling(deps: Deps, rawAgent: unknown, body: unknown): Promise<AgentBilling> {
  const agent = parseInput(agentIdSchema, rawAgent, 'agent');
  const input = parseInput(putBillingSchema, body ?? {}, 'agent billing');
  return requireDb(deps.storage).transaction(async (tx) => {
    const { rows: before } = await tx.query<{ billing: BillingMode | null }>(
      'SELECT billing FROM agent_profiles WHERE agent_id = $1 FOR UPDATE',
      [agent],
    );
    const now = deps.clock.now();
    await tx.query(
      `INSERT INTO agent_profiles (agent_id, billing, created_at, updated_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (agent_id) DO UPDATE SET billing = $2, updated_at = $3`,
      [agent, input.billing, now],
    );
    const after: AgentBilling = { agent_id: agent, billing: input.billing };
    await recordChange(deps, tx, {
      actor: input.actor,
      action: 'billing_updated',
      entityType: 'agent',
      entityId: agent,
      oldValue: before[0] ? { agent_id: agent, billing: before[0].billing } : null,
      newValue: after,
      // the console's Agents screen shows the mode: other tabs refresh on this
      event: { name: 'agent-billing-changed', channel: 'stream', payload: { agent, billing: input.billing } },
    });
    return after;
  });
}
