-- `tasks.json_segments` holds the task's whole JSON text when PostgreSQL can write every value of it
-- exactly as JSON.stringify of the driver's row does: metadata `{}` and each effort null or a whole
-- number below 10^15 (the driver's float, JSON.stringify'd, is then its integer digits; -0 writes 0).
-- Otherwise it holds the runs of migration 1050, and the reader splices the three values in.
--
-- Splicing cost the listing more than its bytes: over 50,000 tasks, GET /api/tasks/all answered in
-- 380–480 ms with the runs spliced and 230–340 ms with the stored text passed through (the same
-- rows, alternated), most of the difference being the garbage the joined strings leave. A whole
-- text begins with `{`, runs with `"id":`, so a reader tells them apart by the first character.
--
-- The values that stay with the reader are the ones whose text depends on a setting or on V8:
-- other floats (float8 output follows extra_float_digits, which a generated column may not depend
-- on) and other metadata (jsonb prints `{"a": 1}`, V8 puts integer-like keys first).
--
-- task_json_segments is kept as it is; the column's expression changes, which PostgreSQL 15 can only
-- do by replacing the column (one rewrite of the table, as 1050's).

CREATE FUNCTION task_json_text(runs text, estimated_effort float8, actual_effort float8, metadata jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF metadata <> '{}'::jsonb
     OR NOT (estimated_effort IS NULL OR (estimated_effort = trunc(estimated_effort) AND abs(estimated_effort) < 1e15))
     OR NOT (actual_effort IS NULL OR (actual_effort = trunc(actual_effort) AND abs(actual_effort) < 1e15)) THEN
    RETURN runs;
  END IF;
  RETURN '{' || split_part(runs, chr(1), 1)
    || ',"estimated_effort":' || coalesce(estimated_effort::bigint::text, 'null')
    || ',"actual_effort":' || coalesce(actual_effort::bigint::text, 'null')
    || ',' || split_part(runs, chr(1), 2) || ',"metadata":{},' || split_part(runs, chr(1), 3) || '}';
END
$$;

ALTER TABLE tasks DROP COLUMN json_segments, ADD COLUMN json_segments text GENERATED ALWAYS AS (task_json_text(task_json_segments(
  id, project_id, title, description, status, priority, owner, due_date, start_date, parent_task_id, dependency_ids, labels,
  created_at, updated_at, completed_at, recurrence_rule, deleted_at, archived_at, locked_at, locked_by, retry_count,
  status_updated_at, active_workflow_run_id, lease_expires_at, lock_generation
), estimated_effort, actual_effort, metadata)) STORED;
