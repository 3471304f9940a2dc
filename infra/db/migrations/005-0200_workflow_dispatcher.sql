-- The workflow engine's additions: the dispatcher's tick summaries (read by dispatcher stats, so
-- that a tick run by a Lambda is visible to the runner and back), indexes for the engine's
-- filters, and the template the system scan queues runs of.

CREATE TABLE dispatcher_ticks (
  id bigserial PRIMARY KEY,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  source text NOT NULL,
  summary jsonb NOT NULL
);

CREATE INDEX workflow_runs_dispatched ON workflow_runs (dispatched_at) WHERE status = 'dispatched';
CREATE INDEX workflow_runs_claimed ON workflow_runs (coalesce(heartbeat_at, claimed_at, dispatched_at)) WHERE status = 'claimed';
CREATE INDEX workflow_runs_running ON workflow_runs (started_at) WHERE status = 'running';
CREATE INDEX workflow_runs_finished ON workflow_runs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX workflow_runs_gateway_session ON workflow_runs (gateway_session_id) WHERE gateway_session_id IS NOT NULL;
CREATE INDEX workflow_approvals_status ON workflow_approvals (status, created_at);
CREATE INDEX workflow_artifacts_status ON workflow_artifacts (status);
CREATE INDEX workflow_agent_routing_agent ON workflow_agent_routing (agent_id);

INSERT INTO workflow_templates (name, display_name, description, steps, ui_category)
VALUES ('system-scan', 'System scan',
        'An agent scans the system and proposes approval-gated suggestions (POST /api/system-scan/run).',
        '["scan", "analyze", "propose-suggestions"]', 'system')
ON CONFLICT (name) DO NOTHING;
