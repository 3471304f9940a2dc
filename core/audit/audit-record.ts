import * as z from 'zod';
/** An audit_log row as the API returns it (spec 01 "Audit record", plus its id and entity id). */
export const auditRecordSchema = z.object({
  id: z.number().int(),
  timestamp: z.date(),
  actor: z.string(),
  action: z.string(),
  entity_type: z.string(),
  entity_id: z.string().nullable(),
  task_id: z.string().nullable(),
  project_id: z.string().nullable(),
  old_value: z.unknown(),
  new_value: z.unknown(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

export const auditColumns = 'id, timestamp, actor, action, entity_type, entity_id, task_id, project_id, old_value, new_value';
