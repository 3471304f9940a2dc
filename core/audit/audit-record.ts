/** An audit_log row as the API returns it (spec 01 "Audit record", plus its id and entity id). */
export interface AuditRecord {
  id: number;
  timestamp: Date;
  actor: string;
  action: string;
  entity_type: string;
  entity_id: string | null;
  task_id: string | null;
  project_id: string | null;
  old_value: unknown;
  new_value: unknown;
}

export const auditColumns = 'id, timestamp, actor, action, entity_type, entity_id, task_id, project_id, old_value, new_value';
