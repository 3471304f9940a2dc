-- A run claim in one round trip, as migration 1000 made the task claim: the caller's
-- one statement reads the run's status and claim session and, only when the run is claimable,
-- calls `claim_dispatched_run`, which reads the row, claims it (guarded by the whole row as read,
-- so the row before is the one read), keeps the task's live-run pointer, writes the audit row,
-- state snapshot and run-updated event row, and answers the claimed run's JSON. NULL claims
-- nothing: a row that moved, or a payload, summary or metadata that mentions a secret word (whose
-- audit copy needs the redaction pass, in Node); the caller decides those under the row lock.
--
-- The claim's target status, the statuses it moves from, the event's channel and name and the
-- payload (runEvent's) come from the caller, so the transitions table and the event's shape stay
-- in core; the statement fills in what only the row knows (workflowType, taskId). As in 1000, what
-- a loser sends is text, cast only by a winner.
--
-- `run_state_json` is a run's JSON as JSON.stringify writes the row the driver answers, as jsonb
-- (to_jsonb's, timestamps and the float as migration 1000's task_state_json writes them). No key of
-- a run is secret-named, so the audit copies are the same value. A timestamp or float column added
-- to workflow_runs must be added here by a later migration (test/handlers/claim-happy-path.test.ts
-- compares the claim's JSON with the row).

CREATE FUNCTION run_state_json(r workflow_runs) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(r) || jsonb_build_object(
    'dispatched_at', js_iso(r.dispatched_at), 'claimed_at', js_iso(r.claimed_at), 'heartbeat_at', js_iso(r.heartbeat_at),
    'started_at', js_iso(r.started_at), 'finished_at', js_iso(r.finished_at), 'reported_at', js_iso(r.reported_at),
    'created_at', js_iso(r.created_at), 'updated_at', js_iso(r.updated_at), 'cost_estimate', js_number(r.cost_estimate))
$$;

CREATE FUNCTION claim_dispatched_run(
  p_run uuid, p_session text, p_agent text, p_actor text, p_at text, p_snapshot text,
  p_claimable text[], p_claimed_status text,
  p_event_channel text, p_event_name text, p_event_payload text, p_secret_words text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  at timestamptz := p_at::timestamptz;
  before workflow_runs;
  after workflow_runs;
  state jsonb;
BEGIN
  SELECT * INTO before FROM workflow_runs WHERE id = p_run;
  IF NOT FOUND OR NOT before.status = ANY (p_claimable)
     OR (before.input_payload::text || coalesce(before.output_summary::text, '') || before.metadata::text) ~* p_secret_words THEN
    RETURN NULL;
  END IF;
  UPDATE workflow_runs r SET status = p_claimed_status, claim_session_id = p_session, gateway_session_id = p_session,
         gateway_session_active = true, owner_agent_id = coalesce(r.owner_agent_id, p_agent), claimed_at = at,
         heartbeat_at = at, updated_at = at
   WHERE r.id = p_run AND r.status = ANY (p_claimable) AND r IS NOT DISTINCT FROM before
  RETURNING * INTO after;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF after.task_id IS NOT NULL THEN
    UPDATE tasks SET active_workflow_run_id = after.id::text
     WHERE id = after.task_id AND active_workflow_run_id IS DISTINCT FROM after.id::text;
  END IF;
  state := run_state_json(after);
  INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, task_id, old_value, new_value)
  VALUES (at, p_actor, 'claimed', 'workflow_run', after.id::text, after.task_id, run_state_json(before), state);
  INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
  VALUES (p_snapshot::uuid, 'workflow_run', after.id::text, state, 'claimed', p_actor, at);
  INSERT INTO event_outbox (channel, name, payload)
  VALUES (p_event_channel, p_event_name, p_event_payload::jsonb || jsonb_build_object('workflowType', after.workflow_type, 'taskId', after.task_id));
  RETURN state;
END $$;
