-- GET /api/tasks/all streams every live task in pages keyed by (created_at, id); without a project
-- filter each page must start where the last ended without sorting the table again.

CREATE INDEX tasks_created ON tasks (created_at, id) WHERE deleted_at IS NULL;
