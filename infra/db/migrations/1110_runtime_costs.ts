/**
 * Costs from the runtime itself (docs/costs.md):
 * - workflow_runs.cost_source gains 'runtime': a finished run whose agent reported no usage takes
 *   the usage and cost the runtime wrote on its session's assistant messages. Counted by budgets,
 *   rollups and the hard stop like a reported cost (the usage columns are the same), and never
 *   repriced (the runtime priced it, as an agent does).
 * - run_runtime_usage: one row per run the runtime pass has looked at, with what it found, so a
 *   run is read once: a run costed, or one whose session holds no usage, is not read again.
 *   Kept apart from workflow_runs so the run's JSON (run_state_json) keeps its columns.
 * - workflow_runs_without_usage: the finished runs that hold no usage, by finish, which is where
 *   the pass looks (within its horizon), so a tick never reads the runs that reported.
 * - chat_messages: the usage and cost of an assistant turn, as the runtime answered it (cost_source
 *   'runtime') or priced by the table from its tokens ('table').
 */
export default `
ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_cost_source_check;
ALTER TABLE workflow_runs ADD CONSTRAINT workflow_runs_cost_source_check CHECK (cost_source IN ('reported', 'table', 'runtime'));

CREATE INDEX workflow_runs_without_usage ON workflow_runs (finished_at, id)
  WHERE finished_at IS NOT NULL AND cost_estimate IS NULL AND input_tokens IS NULL AND output_tokens IS NULL AND cost_source IS NULL;

CREATE TABLE run_runtime_usage (
  run_id uuid PRIMARY KEY REFERENCES workflow_runs(id) ON DELETE CASCADE,
  outcome text NOT NULL CHECK (outcome IN ('costed', 'no_usage', 'no_session', 'reported')),
  session_key text,
  messages integer NOT NULL DEFAULT 0 CHECK (messages >= 0),
  checked_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE chat_messages
  ADD COLUMN model_id text,
  ADD COLUMN input_tokens bigint CHECK (input_tokens >= 0),
  ADD COLUMN output_tokens bigint CHECK (output_tokens >= 0),
  ADD COLUMN cached_tokens bigint CHECK (cached_tokens >= 0),
  ADD COLUMN cache_write_tokens bigint CHECK (cache_write_tokens >= 0),
  ADD COLUMN cost_estimate double precision CHECK (cost_estimate >= 0),
  ADD COLUMN currency text,
  ADD COLUMN cost_source text CHECK (cost_source IN ('runtime', 'table'));
`;
