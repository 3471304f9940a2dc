-- For the tasks issue, beyond 0001:
-- - governance_only on GET /api/audit (`action LIKE 'action.%'`, newest first);
-- - GET /api/tasks/all?project_id= in its listing order, live tasks only;
-- - entity_snapshots gains an insertion sequence: snapshots written in one transaction share
--   their timestamp (a revert's pre-revert and reverted states), and history must still order them.

CREATE INDEX audit_log_governance ON audit_log (timestamp DESC, id DESC) WHERE action LIKE 'action.%';
CREATE INDEX tasks_project_created ON tasks (project_id, created_at, id) WHERE deleted_at IS NULL;
ALTER TABLE entity_snapshots ADD COLUMN seq bigserial;
CREATE INDEX entity_snapshots_entity_seq ON entity_snapshots (entity_type, entity_id, created_at DESC, seq DESC);
CREATE INDEX entity_snapshots_created_seq ON entity_snapshots (created_at DESC, seq DESC);
