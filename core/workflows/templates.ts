import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError } from '../errors';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import {
  createTemplateSchema,
  listTemplatesQuerySchema,
  templateColumns,
  templateNameSchema,
  updateTemplateSchema,
  type WorkflowTemplate,
} from './template';

/** Templates by name, filtered by department_id and ui_category. */
export async function listTemplates(deps: Pick<Deps, 'storage'>, query: unknown): Promise<{ templates: WorkflowTemplate[] }> {
  const filter = parseQuery(listTemplatesQuerySchema, query);
  const db = requireDb(deps.storage);
  const { rows } = await db.query<WorkflowTemplate>(
    `SELECT ${templateColumns} FROM workflow_templates
      WHERE ($1::text IS NULL OR department_id = $1) AND ($2::text IS NULL OR ui_category = $2)
      ORDER BY name`,
    [filter.department_id ?? null, filter.ui_category ?? null],
  );
  return { templates: rows };
}

export async function findTemplate(db: Db, name: string, lock = false): Promise<WorkflowTemplate | undefined> {
  const { rows } = await db.query<WorkflowTemplate>(
    `SELECT ${templateColumns} FROM workflow_templates WHERE name = $1${lock ? ' FOR UPDATE' : ''}`,
    [name],
  );
  return rows[0];
}

export async function getTemplate(deps: Pick<Deps, 'storage'>, rawName: unknown): Promise<WorkflowTemplate> {
  const name = parseInput(templateNameSchema, rawName, 'name');
  const template = await findTemplate(requireDb(deps.storage), name);
  if (!template) throw new NotFoundError(`workflow template ${name} not found`);
  return template;
}

function templateEvent(action: string, name: string) {
  return { name: 'workflow-template-updated', payload: { action, name }, channel: 'stream' as const };
}

/** Creates a template: validate, insert (409 when the name exists), audit `created`. */
export async function createTemplate(deps: Deps, body: unknown, actor = OPERATOR_ACTOR): Promise<WorkflowTemplate> {
  const input = parseInput(createTemplateSchema, body ?? {}, 'workflow template');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    if (await findTemplate(tx, input.name)) throw new ConflictError(`workflow template ${input.name} already exists`);
    const now = deps.clock.now();
    const { rows } = await tx.query<WorkflowTemplate>(
      `INSERT INTO workflow_templates (name, display_name, description, steps, department_id, ui_category, is_active, exclusive_per_task, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${templateColumns}`,
      [
        input.name,
        input.display_name ?? input.name,
        input.description,
        JSON.stringify(input.steps),
        input.department_id,
        input.ui_category,
        input.is_active,
        input.exclusive_per_task,
        now,
      ],
    );
    await recordChange(deps, tx, {
      actor,
      action: 'created',
      entityType: 'workflow_template',
      entityId: input.name,
      newValue: rows[0],
      event: templateEvent('created', input.name),
    });
    return rows[0]!;
  });
}

/** Updates any field but the name; runs already created keep the steps they were created with. */
export async function updateTemplate(deps: Deps, rawName: unknown, body: unknown, actor = OPERATOR_ACTOR): Promise<WorkflowTemplate> {
  const name = parseInput(templateNameSchema, rawName, 'name');
  const patch = parseInput(updateTemplateSchema, body ?? {}, 'workflow template update');
  const db = requireDb(deps.storage);
  return db.transaction(async (tx) => {
    const before = await findTemplate(tx, name, true);
    if (!before) throw new NotFoundError(`workflow template ${name} not found`);
    const set = { ...patch, ...(patch.steps !== undefined ? { steps: JSON.stringify(patch.steps) } : {}) };
    const after = await patchRow<WorkflowTemplate>(tx, {
      table: 'workflow_templates',
      keyColumn: 'name',
      key: name,
      set,
      at: deps.clock.now(),
      returning: templateColumns,
    });
    await recordChange(deps, tx, {
      actor,
      action: 'updated',
      entityType: 'workflow_template',
      entityId: name,
      oldValue: before,
      newValue: after,
      event: templateEvent('updated', name),
    });
    return after!;
  });
}
