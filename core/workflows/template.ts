import * as z from 'zod';

/** Spec 01 "Workflow template": name matches [a-z0-9-]+; steps are plain strings or objects. */
export const templateNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'at most 100 characters')
  .regex(/^[a-z0-9-]+$/, 'must match [a-z0-9-]+ (lower-case letters, digits and dashes)');

const stepName = z.string().trim().min(1, 'a step name must not be empty').max(200, 'a step name has at most 200 characters');

export const templateStepSchema = z.union([
  stepName,
  z.strictObject({
    name: stepName,
    display_name: z.string().max(200).optional(),
    required: z.boolean().optional(),
  }),
]);
export type TemplateStep = z.infer<typeof templateStepSchema>;

export const MAX_TEMPLATE_STEPS = 50;

/** Steps as stored: 1 to 50 entries, names unique so approvals and reports can name a step. */
export const templateStepsSchema = z
  .array(templateStepSchema)
  .min(1, 'a template needs at least one step')
  .max(MAX_TEMPLATE_STEPS, `at most ${MAX_TEMPLATE_STEPS} steps`)
  .refine((steps) => new Set(steps.map(stepNameOf)).size === steps.length, { message: 'step names must be unique' });

export function stepNameOf(step: TemplateStep): string {
  return typeof step === 'string' ? step : step.name;
}

const text = (max: number) => z.string().max(max, `at most ${max} characters`);
const optionalRef = z.string().trim().min(1).max(200).nullable();

export const createTemplateSchema = z.strictObject({
  name: templateNameSchema,
  display_name: text(200).optional(),
  description: text(10_000).default(''),
  steps: templateStepsSchema,
  department_id: optionalRef.default(null),
  ui_category: optionalRef.default(null),
  is_active: z.boolean().default(true),
  exclusive_per_task: z.boolean().default(false),
});

export const updateTemplateSchema = z
  .strictObject({
    display_name: text(200),
    description: text(10_000),
    steps: templateStepsSchema,
    department_id: optionalRef,
    ui_category: optionalRef,
    is_active: z.boolean(),
    exclusive_per_task: z.boolean(),
  })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, { message: 'name at least one field to update (the name itself cannot change)' });

export const listTemplatesQuerySchema = z.strictObject({
  department_id: z.string().min(1).max(200).optional(),
  ui_category: z.string().min(1).max(200).optional(),
});

/** A workflow template as the API answers it (spec 03 workflow_templates). */
export const workflowTemplateSchema = z.object({
  name: z.string(),
  display_name: z.string(),
  description: z.string(),
  steps: z.array(templateStepSchema),
  department_id: z.string().nullable(),
  ui_category: z.string().nullable(),
  is_active: z.boolean(),
  created_at: z.date(),
  updated_at: z.date(),
  /** At most one live run per task for this workflow (a routing entry can ask the same). */
  exclusive_per_task: z.boolean(),
});
export type WorkflowTemplate = z.infer<typeof workflowTemplateSchema>;

export const templateColumns =
  'name, display_name, description, steps, department_id, ui_category, is_active, created_at, updated_at, exclusive_per_task';
