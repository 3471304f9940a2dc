-- Agent safety beyond the spec:
-- - task claims get a lease and a fencing token (lock_generation, answered as lock_token, grows with every
--   claim of the task; the column is not named *_token because snapshots redact every key named so);
--   claims already held when this lands get a fresh lease of the default length rather than
--   expiring at once under agents that are still working;
-- - routing entries and templates may ask for one live run per task, routing entries may cap the
--   live runs of their workflow type;
-- - agents get dispatch controls (a concurrency cap and a provider-quota pause);
-- - run creation remembers idempotency keys;
-- - a failed run says what kind of failure it was (error_class).

ALTER TABLE tasks
  ADD COLUMN lease_expires_at timestamptz,
  ADD COLUMN lock_generation integer NOT NULL DEFAULT 0 CHECK (lock_generation >= 0);
UPDATE tasks SET lease_expires_at = now() + interval '1800 seconds' WHERE locked_by IS NOT NULL;
CREATE INDEX tasks_lease_expiry ON tasks (lease_expires_at) WHERE locked_by IS NOT NULL;

ALTER TABLE workflow_agent_routing
  ADD COLUMN max_concurrent integer CHECK (max_concurrent > 0),
  ADD COLUMN exclusive_per_task boolean NOT NULL DEFAULT false;
ALTER TABLE workflow_templates ADD COLUMN exclusive_per_task boolean NOT NULL DEFAULT false;

ALTER TABLE workflow_runs ADD COLUMN error_class text;
CREATE INDEX workflow_runs_live_by_type ON workflow_runs (workflow_type) WHERE status IN ('dispatched', 'claimed', 'running', 'waiting_for_approval');
CREATE INDEX workflow_runs_live_by_target ON workflow_runs (target_agent_id) WHERE status IN ('dispatched', 'claimed', 'running', 'waiting_for_approval');

CREATE TABLE agent_dispatch_controls (
  agent_id text PRIMARY KEY,
  max_concurrent_runs integer CHECK (max_concurrent_runs > 0),
  dispatch_paused_until timestamptz,
  pause_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER agent_dispatch_controls_touch BEFORE UPDATE ON agent_dispatch_controls FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE run_idempotency_keys (
  idempotency_key text PRIMARY KEY,
  request_hash text NOT NULL,
  run_id uuid NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX run_idempotency_keys_expiry ON run_idempotency_keys (expires_at);
CREATE INDEX run_idempotency_keys_run ON run_idempotency_keys (run_id);
