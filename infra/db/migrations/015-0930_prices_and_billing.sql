-- Honest prices:
-- - model_prices: the price table PUT /api/costs/prices stores (it overrides MODEL_PRICES_FILE per
--   model). Each model has a history of prices by effective_from, so a price change does not
--   rewrite the cost of usage before it. effective_from is the UTC day (YYYY-MM-DD) the price
--   starts; '' is the price from the beginning (text, so that it can be part of the primary key
--   a snapshot needs and sort before every day).
-- - workflow_runs.cache_write_tokens: input tokens written to the provider's prompt cache (a subset
--   of input_tokens, like cached_tokens), priced at the cache-write rate.
-- - workflow_runs.cost_source: who set cost_estimate: the agent ('reported') or the price table
--   ('table'); repricing touches only the latter (and unpriced runs). Null before this migration.
-- - workflow_runs.billing and agent_profiles.billing: runs of subscription plans keep their list
--   price as a shadow cost; budgets.basis says whether a budget counts it.

CREATE TABLE model_prices (
  model_id text NOT NULL CHECK (model_id <> ''),
  effective_from text NOT NULL DEFAULT '' CHECK (effective_from = '' OR effective_from ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  input_per_million double precision NOT NULL CHECK (input_per_million >= 0),
  output_per_million double precision NOT NULL CHECK (output_per_million >= 0),
  cached_input_per_million double precision CHECK (cached_input_per_million >= 0),
  cache_write_per_million double precision CHECK (cache_write_per_million >= 0),
  billing text CHECK (billing IN ('metered', 'subscription')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model_id, effective_from)
);
CREATE TRIGGER model_prices_touch BEFORE UPDATE ON model_prices FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

ALTER TABLE workflow_runs
  ADD COLUMN cache_write_tokens bigint CHECK (cache_write_tokens >= 0),
  ADD COLUMN cost_source text CHECK (cost_source IN ('reported', 'table')),
  ADD COLUMN billing text CHECK (billing IN ('metered', 'subscription'));

ALTER TABLE agent_profiles ADD COLUMN billing text CHECK (billing IN ('metered', 'subscription'));

ALTER TABLE budgets ADD COLUMN basis text NOT NULL DEFAULT 'billed' CHECK (basis IN ('billed', 'list'));
