-- The board's column order as an index (core/views/board.ts, GET /api/views/board?limit_per_column=,
-- docs/console-api.md): the live, unarchived tasks of a project by status, most urgent then oldest,
-- the ORDER BY of `urgencyOrder` written out (a change to that order needs a new index). The
-- console's first screenful of each column then reads its few tasks in order, instead of every
-- task of the column sorted for a top-N (a 10,000-task board: ~0.3 ms rather than ~10 ms); the
-- columns' counts are an index-only scan of it once the table has been vacuumed.

CREATE INDEX tasks_board_column_order ON tasks
  (project_id, status, (CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END), created_at, id)
  WHERE deleted_at IS NULL AND archived_at IS NULL;
