-- Two lookups of the operator console's routes (docs/console-api.md):
-- - GET /api/tasks/search matches task titles by substring, case-insensitive, over every project:
--   a trigram index answers `title ILIKE '%q%'` without reading the whole table (pg_trgm is
--   created by 0001). Deleted tasks are never searched, so they stay out of the index.
-- - GET /api/views/board/as-of finds the tasks a project held at an instant from their state
--   snapshots: an index of task snapshots by the project their state names, so that a project's
--   tasks are found without reading every task snapshot ever written.

CREATE INDEX tasks_title_trgm ON tasks USING gin (title gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX entity_snapshots_task_project ON entity_snapshots ((state->>'project_id'), entity_id) WHERE entity_type = 'task';
