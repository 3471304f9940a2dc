-- Each task keeps the JSON text of its columns, written when the row is: `json_segments`, a stored
-- generated column, so that lists are built in SQL. Building a task's JSON while listing cost
-- PostgreSQL ~5.5 µs per task (50,000 tasks: ~275 ms, more than the bare query of the same rows
-- and their parsing in the driver together); a stored text is read at the cost of its bytes.
--
-- The text is what core/tasks/task-json.ts built per read until now: the plain columns as
-- `"name":value` runs, in column order, escaped as JSON.stringify escapes and with timestamps as
-- toISOString writes them. Its runs are separated by chr(1), which JSON text never holds raw
-- (JSON.stringify writes a control character as an escape), at the places of the three columns
-- whose JSON PostgreSQL writes differently from JSON.stringify (estimated_effort and actual_effort,
-- float8; metadata, jsonb): the reader splices those in.
--
-- Generated, so no write can leave it stale: PostgreSQL computes it on every INSERT and every UPDATE
-- of a column it reads (~5 µs per row written). It is declared IMMUTABLE, as a generated column
-- requires, although to_char and to_json are only STABLE in general: with these format patterns (no
-- locale-dependent fields) and these types their output does not depend on any setting. PL/pgSQL,
-- not SQL: an SQL function whose body is not immutable is not inlined, and would be parsed and planned
-- again by every statement that writes a task.
--
-- Snapshots, exports and restores read the catalog and leave generated columns out; the two places
-- that turn a whole task row into JSON (task_state_json here, and the revert of a state snapshot)
-- drop the key.

CREATE FUNCTION task_json_segments(
  id uuid, project_id uuid, title text, description text, status text, priority text, owner text,
  due_date timestamptz, start_date timestamptz, parent_task_id uuid, dependency_ids uuid[], labels text[],
  created_at timestamptz, updated_at timestamptz, completed_at timestamptz, recurrence_rule text,
  deleted_at timestamptz, archived_at timestamptz, locked_at timestamptz, locked_by text, retry_count integer,
  status_updated_at timestamptz, active_workflow_run_id text, lease_expires_at timestamptz, lock_generation integer
) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN
    '"id":' || coalesce('"' || id::text || '"', 'null')
    || ',"project_id":' || coalesce('"' || project_id::text || '"', 'null')
    || ',"title":' || coalesce(to_json(title)::text, 'null')
    || ',"description":' || coalesce(to_json(description)::text, 'null')
    || ',"status":' || coalesce(to_json(status)::text, 'null')
    || ',"priority":' || coalesce(to_json(priority)::text, 'null')
    || ',"owner":' || coalesce(to_json(owner)::text, 'null')
    || ',"due_date":' || coalesce('"' || to_char(due_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"start_date":' || coalesce('"' || to_char(start_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || chr(1) || '"parent_task_id":' || coalesce('"' || parent_task_id::text || '"', 'null')
    || ',"dependency_ids":' || coalesce(to_json(dependency_ids)::text, 'null')
    || ',"labels":' || coalesce(to_json(labels)::text, 'null')
    || ',"created_at":' || coalesce('"' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"updated_at":' || coalesce('"' || to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"completed_at":' || coalesce('"' || to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"recurrence_rule":' || coalesce(to_json(recurrence_rule)::text, 'null')
    || chr(1) || '"deleted_at":' || coalesce('"' || to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"archived_at":' || coalesce('"' || to_char(archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"locked_at":' || coalesce('"' || to_char(locked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"locked_by":' || coalesce(to_json(locked_by)::text, 'null')
    || ',"retry_count":' || coalesce(retry_count::text, 'null')
    || ',"status_updated_at":' || coalesce('"' || to_char(status_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"active_workflow_run_id":' || coalesce(to_json(active_workflow_run_id)::text, 'null')
    || ',"lease_expires_at":' || coalesce('"' || to_char(lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"lock_token":' || coalesce(lock_generation::text, 'null');
END
$$;

ALTER TABLE tasks ADD COLUMN json_segments text GENERATED ALWAYS AS (task_json_segments(
  id, project_id, title, description, status, priority, owner, due_date, start_date, parent_task_id, dependency_ids, labels,
  created_at, updated_at, completed_at, recurrence_rule, deleted_at, archived_at, locked_at, locked_by, retry_count,
  status_updated_at, active_workflow_run_id, lease_expires_at, lock_generation
)) STORED;

CREATE OR REPLACE FUNCTION task_state_json(t tasks, redacted boolean) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(t) - 'lock_generation' - 'json_segments' || jsonb_build_object(
    'due_date', js_iso(t.due_date), 'start_date', js_iso(t.start_date), 'created_at', js_iso(t.created_at),
    'updated_at', js_iso(t.updated_at), 'completed_at', js_iso(t.completed_at), 'deleted_at', js_iso(t.deleted_at),
    'archived_at', js_iso(t.archived_at), 'locked_at', js_iso(t.locked_at), 'status_updated_at', js_iso(t.status_updated_at),
    'lease_expires_at', js_iso(t.lease_expires_at),
    'estimated_effort', js_number(t.estimated_effort), 'actual_effort', js_number(t.actual_effort),
    'lock_token', CASE WHEN redacted THEN to_jsonb('[REDACTED]'::text) ELSE to_jsonb(t.lock_generation) END)
$$;
