import * as z from 'zod';
import type { GovernanceAction } from '../workflows/governance';
import { jsonObjectSchema, uuidSchema } from '../validation';

/**
 * The governed action kinds of spec 02 as data: target format, params schema, severity,
 * confirmation mode, rollback hint template and governance action. The execute pipeline, the
 * catalog endpoint and the tests read this one table.
 */

export type Severity = 'LOW' | 'MEDIUM' | 'MEDIUM-HIGH' | 'HIGH';
export type ConfirmMode = 'NONE' | 'PREVIEW_MODAL' | 'HOLD_CONFIRM';

/** Spec 02 limit: a HOLD_CONFIRM press lasts at least 1.2 seconds. */
export const HOLD_CONFIRM_MIN_MS = 1200;

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);

export interface ActionKindSpec {
  /** What targetId names, and its schema. */
  target: { names: string; schema: z.ZodType<string> };
  params: z.ZodType<Record<string, unknown>>;
  severity: Severity;
  confirm: { mode: ConfirmMode; hold_ms?: number; when_target_queued?: ConfirmMode };
  /** Informational recovery move; {placeholders} are filled from the target and the result. */
  rollbackHint: string | null;
  /** Which governance rule decides (approval.decide: by the decision). */
  governance: GovernanceAction | { by: 'decision'; approved: GovernanceAction; rejected: GovernanceAction };
}

const fleetTarget = z.literal('fleet', { message: 'must be fleet (a snapshot covers the whole fleet)' });

export const actionKinds = {
  'task.assign': {
    target: { names: 'task id (UUID)', schema: uuidSchema },
    params: z.strictObject({ owner: text(200) }),
    severity: 'LOW',
    confirm: { mode: 'NONE' },
    rollbackHint: 'Re-assign task {targetId} to its previous owner ({previous_owner}).',
    governance: 'reassign_owner',
  },
  'run.dispatch': {
    target: { names: 'task id (UUID)', schema: uuidSchema },
    params: z.strictObject({ template: text(100), input_payload: jsonObjectSchema.optional() }),
    severity: 'MEDIUM',
    confirm: { mode: 'PREVIEW_MODAL' },
    rollbackHint: 'Cancel the new run {new_run_id}.',
    governance: 'launch_workflow',
  },
  'approval.decide': {
    target: { names: 'approval id (UUID)', schema: uuidSchema },
    params: z.strictObject({
      decision: z.enum(['approved', 'rejected'], { message: 'must be approved or rejected' }),
      notes: z.string().max(5000, 'at most 5000 characters').optional(),
    }),
    severity: 'MEDIUM-HIGH',
    confirm: { mode: 'PREVIEW_MODAL' },
    rollbackHint: 'A decision cannot be undone: escalate approval {targetId} or re-create the approval.',
    governance: { by: 'decision', approved: 'approve', rejected: 'reject' },
  },
  'run.cancel': {
    target: { names: 'run id (UUID)', schema: uuidSchema },
    params: z.strictObject({ reason: z.string().max(2000, 'at most 2000 characters').optional() }),
    severity: 'HIGH',
    confirm: { mode: 'HOLD_CONFIRM', hold_ms: HOLD_CONFIRM_MIN_MS, when_target_queued: 'PREVIEW_MODAL' },
    rollbackHint: 'Redispatch run {targetId} (run.redispatch).',
    governance: 'cancel_run',
  },
  'run.redispatch': {
    target: { names: 'run id (UUID)', schema: uuidSchema },
    params: z.strictObject({}),
    severity: 'MEDIUM',
    confirm: { mode: 'PREVIEW_MODAL' },
    rollbackHint: 'Cancel run {targetId} again (run.cancel).',
    governance: 'override_failure',
  },
  'task.create': {
    target: { names: 'project id (UUID)', schema: uuidSchema },
    params: z.strictObject({
      title: text(500),
      description: z.string().max(20_000).optional(),
      owner_agent: text(200).optional(),
      status: z.string().optional(),
      due_date: z.string().optional(),
    }),
    severity: 'LOW',
    confirm: { mode: 'NONE' },
    rollbackHint: 'Archive or delete the new task {new_task_id}.',
    governance: 'reassign_owner',
  },
  'task.update': {
    target: { names: 'task id (UUID)', schema: uuidSchema },
    params: z.strictObject({
      patch: jsonObjectSchema.refine((p) => Object.keys(p).length > 0, 'must name at least one field'),
    }),
    severity: 'LOW',
    confirm: { mode: 'NONE' },
    rollbackHint: 'Patch task {targetId} back to its previous values of {changed_fields}.',
    governance: 'reassign_owner',
  },
  'snapshot.create': {
    target: { names: 'the literal fleet', schema: fleetTarget },
    params: z.strictObject({ name: text(120).optional() }),
    severity: 'LOW',
    confirm: { mode: 'NONE' },
    rollbackHint: 'Delete the snapshot artifact {snapshot_id} from SNAPSHOT_DIR if it is not wanted.',
    governance: 'override_failure',
  },
} as const satisfies Record<string, ActionKindSpec>;

export type ActionKind = keyof typeof actionKinds;
export const actionKindNames = Object.keys(actionKinds) as [ActionKind, ...ActionKind[]];
/** Kinds whose execution queues a run: the budget headroom probe runs before them. */
export const dispatchClassKinds: ReadonlySet<ActionKind> = new Set(['run.dispatch', 'run.redispatch']);

export function governanceActionOf(kind: ActionKind, params: Record<string, unknown>): GovernanceAction {
  const rule: ActionKindSpec['governance'] = actionKinds[kind].governance;
  if (typeof rule === 'string') return rule;
  return params.decision === 'rejected' ? rule.rejected : rule.approved;
}

/** Fills a rollback hint template; a placeholder without a value reads "unknown". */
export function rollbackHintFor(kind: ActionKind, values: Record<string, unknown>): string | null {
  const template: string | null = actionKinds[kind].rollbackHint;
  if (!template) return null;
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) return 'unknown';
    if (v === null) return 'none';
    return Array.isArray(v) ? v.join(', ') : String(v);
  });
}

/** GET /api/actions/catalog: what clients need to render and confirm each kind. */
export function actionCatalog() {
  return {
    hold_confirm_min_ms: HOLD_CONFIRM_MIN_MS,
    kinds: actionKindNames.map((kind) => {
      const spec: ActionKindSpec = actionKinds[kind];
      return {
        kind,
        target: spec.target.names,
        params_schema: z.toJSONSchema(spec.params, { io: 'input', unrepresentable: 'any' }),
        severity: spec.severity,
        confirm: spec.confirm,
        rollback_hint_template: spec.rollbackHint,
        governance_action: spec.governance,
        dispatch_class: dispatchClassKinds.has(kind),
      };
    }),
  };
}
