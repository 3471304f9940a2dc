-- A routing entry may say what one run of its workflow type is expected to spend. While
-- such a run is live, the part it has not reported yet is reserved against the budgets in its scope.

ALTER TABLE workflow_agent_routing
  ADD COLUMN expected_cost_usd double precision CHECK (expected_cost_usd >= 0),
  ADD COLUMN expected_tokens bigint CHECK (expected_tokens >= 0);
