import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import type { Db, Deps } from '../ports';
import { auditJson } from '../audit/record-change';
import { requireDb } from '../storage';
import { parseInput } from '../validation';

/**
 * Instrumentation of spec 03: feature usage as audit rows, nothing else. These are not changes
 * to an entity, so they write the audit row alone (no state snapshot, no event) and never touch
 * workflow state.
 */

export const graphVerdicts = ['up', 'down'] as const;

const graphEventSchema = z
  .strictObject({
    kind: z.enum(['open', 'feedback'], { message: 'must be open or feedback' }),
    workflow_ref: z.string().trim().min(1).max(200).optional(),
    mode: z.enum(['template', 'run'], { message: 'must be template or run' }).optional(),
    verdict: z.enum(graphVerdicts, { message: 'must be up or down' }).optional(),
    note: z.string().max(2000, 'at most 2000 characters').optional(),
  })
  .refine((e) => e.kind === 'feedback' || e.verdict === undefined, {
    message: 'a verdict belongs to feedback, not open',
    path: ['verdict'],
  });

export const telemetrySchema = z.strictObject({
  tool: z.string().trim().min(1).max(100),
  outcome: z.enum(['ok', 'error'], { message: 'must be ok or error' }),
  durationMs: z.number().finite().min(0, 'must not be negative').max(86_400_000),
});

async function appendAuditRow(db: Db, at: Date, action: string, entityType: string, entityId: string, value: unknown): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [at, OPERATOR_ACTOR, action, entityType, entityId, auditJson(value)],
  );
  return rows[0]!.id;
}

/** POST /api/workflow-graph/events: one audit row, action workflow-graph-open or workflow-graph-feedback. */
export async function recordWorkflowGraphEvent(deps: Pick<Deps, 'storage' | 'clock'>, body: unknown) {
  const event = parseInput(graphEventSchema, body ?? {}, 'workflow graph event');
  const action = `workflow-graph-${event.kind}`;
  const id = await appendAuditRow(
    requireDb(deps.storage),
    deps.clock.now(),
    action,
    'workflow_graph',
    event.workflow_ref ?? 'workflow-graph',
    event,
  );
  return { recorded: true, action, audit_id: id };
}

/** POST /api/mcp/telemetry: one audit row, action mcp-tool-call. */
export async function recordMcpTelemetry(deps: Pick<Deps, 'storage' | 'clock'>, body: unknown) {
  const call = parseInput(telemetrySchema, body ?? {}, 'telemetry');
  const id = await appendAuditRow(requireDb(deps.storage), deps.clock.now(), 'mcp-tool-call', 'mcp_tool', call.tool, call);
  return { recorded: true, action: 'mcp-tool-call', audit_id: id };
}
