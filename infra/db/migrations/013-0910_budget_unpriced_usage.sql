-- A USD-capped budget whose period has runs with tokens but no price warns through its
-- ledger, once per period, as `unpriced_usage`. The column's CHECK (an inline constraint of 0001,
-- named by PostgreSQL's rule) gains that kind.

ALTER TABLE budget_events DROP CONSTRAINT budget_events_event_kind_check;
ALTER TABLE budget_events ADD CONSTRAINT budget_events_event_kind_check
  CHECK (event_kind IN ('warned', 'paused', 'hard_stopped', 'recovered', 'unpriced_usage'));
