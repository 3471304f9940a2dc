-- Budget spend and the headroom probe filter runs by their agent (owner, else target) within a
-- period window; cost analytics group by it. One index serves both.

CREATE INDEX IF NOT EXISTS workflow_runs_usage_agent
  ON workflow_runs ((coalesce(owner_agent_id, target_agent_id)), (coalesce(reported_at, started_at, created_at)));
