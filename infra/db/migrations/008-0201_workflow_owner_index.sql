-- The agent bridge and run ownership look runs up by owner_agent_id as well as target_agent_id.

CREATE INDEX workflow_runs_owner ON workflow_runs (owner_agent_id, status) WHERE owner_agent_id IS NOT NULL;
