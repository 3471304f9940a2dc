import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import type { ValidationIssue } from '../errors';
import { canonicalJson, sha256Hex } from '../snapshots/canonical-json';
import { jsonObjectSchema, uuidSchema } from '../validation';
import { actionKindNames, actionKinds, type ActionKind } from './catalog';

/** POST /api/actions/execute: the envelope every governed action arrives in (spec 02). */
export const envelopeSchema = z.strictObject({
  actionId: uuidSchema,
  kind: z.enum(actionKindNames, { message: `must be one of ${actionKindNames.join(', ')}` }),
  targetId: z.string().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  params: jsonObjectSchema.default({}),
  actor: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters').default(OPERATOR_ACTOR),
  confirm: z
    .strictObject({
      mode: z.enum(['NONE', 'PREVIEW_MODAL', 'HOLD_CONFIRM'], { message: 'must be NONE, PREVIEW_MODAL or HOLD_CONFIRM' }),
      value: z.unknown().optional(),
    })
    .optional(),
});

export interface ActionEnvelope {
  actionId: string;
  kind: ActionKind;
  targetId: string;
  /** As sent: the hash is over these. */
  params: Record<string, unknown>;
  /** As validated by the kind's schema (defaults applied): what the backing operation gets. */
  input: Record<string, unknown>;
  actor: string;
  confirm?: { mode: string; value?: unknown };
  paramsHash: string;
}

export type EnvelopeCheck = { ok: true; envelope: ActionEnvelope } | { ok: false; details: ValidationIssue[] };

const issues = (error: z.ZodError, prefix: string): ValidationIssue[] =>
  error.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || 'envelope', message: i.message }));

/** SHA-256 over canonical JSON (keys sorted at every depth) of params. */
export function paramsHashOf(params: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(params));
}

/** The registry check of spec 02: kind, then the kind's target format and params schema, every issue named. */
export function checkEnvelope(body: unknown): EnvelopeCheck {
  const parsed = envelopeSchema.safeParse(body ?? {});
  if (!parsed.success) return { ok: false, details: issues(parsed.error, '') };
  const e = parsed.data;
  const spec = actionKinds[e.kind];
  const details: ValidationIssue[] = [];
  const target = spec.target.schema.safeParse(e.targetId);
  if (!target.success) details.push({ path: 'targetId', message: `must be the ${spec.target.names} for ${e.kind}` });
  const params = spec.params.safeParse(e.params);
  if (!params.success) details.push(...issues(params.error, 'params'));
  if (!params.success || details.length) return { ok: false, details };
  return {
    ok: true,
    envelope: {
      actionId: e.actionId.toLowerCase(),
      kind: e.kind,
      targetId: e.targetId,
      params: e.params,
      input: params.data,
      actor: e.actor,
      confirm: e.confirm,
      paramsHash: paramsHashOf(e.params),
    },
  };
}
