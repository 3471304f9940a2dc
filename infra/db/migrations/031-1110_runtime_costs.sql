-- Costs from the runtime itself (docs/costs.md):
-- - workflow_runs.cost_source gains 'runtime': a finished run whose agent reported no usage takes
--   the usage and cost the runtime wrote on its session's assistant messages. Counted by budgets,
--   rollups and the hard stop like a reported cost (the usage columns are the same), and never
--   repriced (the runtime priced it, as an agent does).
-- - run_runtime_usage: one row per run the runtime pass has looked at, with what it found, so a
--   run is read once: a run costed, or one whose session holds no usage, is not read again.
--   Kept apart from workflow_runs so the run's JSON (run_state_json) keeps its columns.
-- - run_runtime_usage_pending: the runs the pass has still to look at. A statement trigger on
--   workflow_runs queues, in the writer's transaction, every run a statement leaves finished with a
--   session key and no usage that has no outcome yet; the pass deletes a run's row with its outcome.
--   So a pass reads only what is left to do, never the runs it already looked at (a partial index
--   of finished runs without usage, tried first, read 40,000 looked-at runs a tick in 0.2-0.4 s).
-- - chat_messages: the usage and cost of an assistant turn, as the runtime answered it (cost_source
--   'runtime') or priced by the table from its tokens ('table').

ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_cost_source_check;
ALTER TABLE workflow_runs ADD CONSTRAINT workflow_runs_cost_source_check CHECK (cost_source IN ('reported', 'table', 'runtime'));

CREATE TABLE run_runtime_usage (
  run_id uuid PRIMARY KEY REFERENCES workflow_runs(id) ON DELETE CASCADE,
  outcome text NOT NULL CHECK (outcome IN ('costed', 'no_usage', 'no_session', 'reported')),
  session_key text,
  messages integer NOT NULL DEFAULT 0 CHECK (messages >= 0),
  checked_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE run_runtime_usage_pending (
  run_id uuid PRIMARY KEY REFERENCES workflow_runs(id) ON DELETE CASCADE,
  finished_at timestamptz NOT NULL
);
CREATE INDEX run_runtime_usage_pending_finished ON run_runtime_usage_pending (finished_at, run_id);

CREATE FUNCTION run_runtime_usage_queue() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO run_runtime_usage_pending (run_id, finished_at)
  SELECT n.id, n.finished_at FROM run_runtime_usage_changed n
   WHERE n.finished_at IS NOT NULL AND n.status IN ('completed', 'failed', 'cancelled', 'timed_out')
     AND n.cost_estimate IS NULL AND n.input_tokens IS NULL AND n.output_tokens IS NULL AND n.cost_source IS NULL
     AND (n.gateway_session_id IS NOT NULL OR n.claim_session_id IS NOT NULL OR cardinality(n.session_history) > 0)
     AND NOT EXISTS (SELECT 1 FROM run_runtime_usage u WHERE u.run_id = n.id)
  ON CONFLICT (run_id) DO NOTHING;
  RETURN NULL;
END $fn$;
CREATE TRIGGER run_runtime_usage_queue AFTER UPDATE ON workflow_runs REFERENCING NEW TABLE AS run_runtime_usage_changed
  FOR EACH STATEMENT EXECUTE FUNCTION run_runtime_usage_queue();

ALTER TABLE chat_messages
  ADD COLUMN model_id text,
  ADD COLUMN input_tokens bigint CHECK (input_tokens >= 0),
  ADD COLUMN output_tokens bigint CHECK (output_tokens >= 0),
  ADD COLUMN cached_tokens bigint CHECK (cached_tokens >= 0),
  ADD COLUMN cache_write_tokens bigint CHECK (cache_write_tokens >= 0),
  ADD COLUMN cost_estimate double precision CHECK (cost_estimate >= 0),
  ADD COLUMN currency text,
  ADD COLUMN cost_source text CHECK (cost_source IN ('runtime', 'table'));
