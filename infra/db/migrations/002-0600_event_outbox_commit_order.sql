-- Outbox ids in commit order, and the pruning watermark.
--
-- A bigserial id is taken when the row is inserted, but transactions commit in any order: a
-- reader that has seen id 11 could later find id 10 committing, and a client reconnecting with
-- Last-Event-ID 11 would never get it. So each outbox row is renumbered when its transaction
-- commits (a deferred constraint trigger), under a transaction-scoped advisory lock that is
-- released only after the commit is visible: ids become visible in increasing order, and
-- "every row with id > N" is a gap-free cursor. The lock is held only for the commit itself,
-- after the transaction's own statements, so it serializes commits of event-carrying
-- transactions but never waits on their row locks. The NOTIFY carries the final id.
--
-- event_outbox_watermark records the highest id pruning has deleted, so a client whose
-- Last-Event-ID is older than that is told to resync instead of silently missing events.

CREATE TABLE event_outbox_watermark (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO event_outbox_watermark DEFAULT VALUES;

ALTER TABLE event_outbox ALTER COLUMN created_at SET DEFAULT clock_timestamp();

CREATE FUNCTION event_outbox_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  final_id bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(7461600);
  final_id := nextval('event_outbox_id_seq');
  UPDATE event_outbox SET id = final_id, created_at = clock_timestamp() WHERE id = NEW.id;
  IF FOUND THEN
    PERFORM pg_notify('task_server_outbox', final_id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER event_outbox_number_at_commit
  AFTER INSERT ON event_outbox
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION event_outbox_number_at_commit();
