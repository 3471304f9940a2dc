-- When an agent token was last presented (to the minute), so an operator can retire the idle ones.

ALTER TABLE agent_tokens ADD COLUMN last_used_at timestamptz;
