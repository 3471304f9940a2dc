-- A claim of a free task in one round trip: the caller's one statement reads the task's
-- lock columns and, only when the task looks free, calls `claim_free_task`, which reads the row,
-- claims it and writes the claim's audit row, state snapshot and event row (the statement is its
-- own transaction) and answers the claimed task's JSON.
--
-- A loser of a claim race pays a plain read, as it did when the claim read first from Node: the
-- writes sit in the function, so a statement that claims nothing never opens the audit, snapshot
-- and outbox tables and their indexes, nor runs the function (one statement holding every write as
-- CTEs cost a loser ~60% more, and the 50-agent race fell to half). What a loser still sends is
-- passed as text (the time, the snapshot id, the event payload) and cast only by a winner, since
-- every parameter is parsed when bound, used or not; constants are written in the statement. The UPDATE is guarded by the
-- whole row as the function read it, so the row before the claim is the one read. A row that moved,
-- a task held meanwhile, or metadata that mentions a secret word (whose audit copy needs the
-- redaction pass, in Node) answer NULL and claim nothing: the caller decides those under the row lock.
--
-- `task_state_json` is a task's JSON as JSON.stringify writes the row the driver answers, as
-- jsonb: to_jsonb's, with timestamps as toISOString writes them (`js_iso`), a float JSON cannot
-- hold as null (`js_number`), and the fencing token named lock_token as the API names it;
-- `redacted` writes lock_token, the one secret-named key of a task (spec 02 pattern), as the
-- redaction marker. A timestamp or float column added to tasks must be added here by a later
-- migration (the JSON property test in test/handlers/tasks-json-text.test.ts compares it with the row).

CREATE FUNCTION js_iso(at timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE FUNCTION js_number(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN x IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE x END
$$;

CREATE FUNCTION task_state_json(t tasks, redacted boolean) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(t) - 'lock_generation' || jsonb_build_object(
    'due_date', js_iso(t.due_date), 'start_date', js_iso(t.start_date), 'created_at', js_iso(t.created_at),
    'updated_at', js_iso(t.updated_at), 'completed_at', js_iso(t.completed_at), 'deleted_at', js_iso(t.deleted_at),
    'archived_at', js_iso(t.archived_at), 'locked_at', js_iso(t.locked_at), 'status_updated_at', js_iso(t.status_updated_at),
    'lease_expires_at', js_iso(t.lease_expires_at),
    'estimated_effort', js_number(t.estimated_effort), 'actual_effort', js_number(t.actual_effort),
    'lock_token', CASE WHEN redacted THEN to_jsonb('[REDACTED]'::text) ELSE to_jsonb(t.lock_generation) END)
$$;

CREATE FUNCTION claim_free_task(
  p_task uuid, p_agent text, p_at text, p_lease_seconds integer, p_snapshot text,
  p_event_channel text, p_event_name text, p_event_payload text, p_secret_words text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  at timestamptz := p_at::timestamptz;
  before tasks;
  after tasks;
  claimed jsonb;
BEGIN
  SELECT * INTO before FROM tasks WHERE id = p_task AND deleted_at IS NULL;
  IF NOT FOUND OR before.locked_by IS NOT NULL OR before.metadata::text ~* p_secret_words THEN
    RETURN NULL;
  END IF;
  UPDATE tasks t SET locked_at = at, locked_by = p_agent, lease_expires_at = at + make_interval(secs => p_lease_seconds),
         lock_generation = t.lock_generation + 1, updated_at = at
   WHERE t.id = p_task AND t.locked_by IS NULL AND t.deleted_at IS NULL AND t IS NOT DISTINCT FROM before
  RETURNING * INTO after;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, project_id, task_id, old_value, new_value)
  VALUES (at, p_agent, 'claimed', 'task', after.id::text, after.project_id, after.id, task_state_json(before, true), task_state_json(after, true));
  claimed := task_state_json(after, false);
  INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
  VALUES (p_snapshot::uuid, 'task', after.id::text, claimed, 'claimed', p_agent, at);
  INSERT INTO event_outbox (channel, name, payload) VALUES (p_event_channel, p_event_name, p_event_payload::jsonb);
  RETURN claimed;
END $$;
