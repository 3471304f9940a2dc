-- Webhooks and their delivery log. A webhook reads the outbox from `cursor` (a stream
-- position, so only committed events, gap-free); each event it wants becomes a delivery, sent in
-- `seq` order per webhook. `lease_until` makes one process at a time deliver a webhook's queue
-- (runners and the scheduled Lambda alike). The secret signs deliveries, so it is stored as given;
-- neither table is carried by snapshots (a secret never travels in one).

CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  url text NOT NULL CHECK (url ~ '^https?://'),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  secret text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  failing boolean NOT NULL DEFAULT false,
  cursor bigint NOT NULL,
  lease_until timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER webhooks_touch BEFORE UPDATE ON webhooks FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  position bigint,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  event_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  response_code integer,
  response_body text CHECK (length(response_body) <= 1024),
  last_error text,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (webhook_id, seq DESC);
CREATE TRIGGER webhook_deliveries_touch BEFORE UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
