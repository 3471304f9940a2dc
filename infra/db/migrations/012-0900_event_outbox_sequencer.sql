-- Outbox positions handed out after commit, not at commit: writers no longer share a lock.
--
-- Migration 0600 renumbered every outbox row at commit under one advisory lock, and NOTIFYed
-- inside the writing transaction (PostgreSQL serializes the commits of notifying transactions
-- too), so every event-carrying commit waited for the one before it. Now a writer only INSERTs
-- its row (`id` from the sequence, `position` NULL) and commits; afterwards the sequencer
-- (`event_outbox_sequence`, called by the writer's process after commit, and by every runner's
-- listener as a safety net) gives the committed rows without a position the next positions, in
-- id order, under a lock that only sequencers take, and NOTIFYs the last one. Each sequencing
-- pass commits before the next one starts, so positions become visible in increasing order and
-- "every row with position > N" stays a gap-free cursor; a row that commits late simply gets a
-- later position. A long transaction holds back nobody's events but its own. See
-- docs/adr/0005-outbox-sequencer.md.
--
-- Rows already numbered by 0600 keep their id as their position. The watermark row gains
-- `last_position`, the highest position handed out (what a Last-Event-ID may be at most).

DROP TRIGGER event_outbox_number_at_commit ON event_outbox;
DROP FUNCTION event_outbox_number_at_commit();

ALTER TABLE event_outbox ADD COLUMN position bigint;
UPDATE event_outbox SET position = id;
-- Partial, so a writer's INSERT (position still NULL) touches neither the position index nor,
-- with a BRIN on created_at (rows arrive in time order), a second btree: the write path pays
-- for the primary key and the small index of rows waiting for the sequencer.
CREATE UNIQUE INDEX event_outbox_position ON event_outbox (position) WHERE position IS NOT NULL;
CREATE INDEX event_outbox_unsequenced ON event_outbox (id) WHERE position IS NULL;
DROP INDEX event_outbox_created;
CREATE INDEX event_outbox_created ON event_outbox USING brin (created_at);

ALTER TABLE event_outbox_watermark ADD COLUMN last_position bigint NOT NULL DEFAULT 0;
UPDATE event_outbox_watermark
   SET last_position = greatest(pruned_through, (SELECT coalesce(max(id), 0) FROM event_outbox), (SELECT last_value FROM event_outbox_id_seq));

CREATE FUNCTION event_outbox_sequence(max_rows integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  assigned bigint;
  last bigint;
BEGIN
  -- Nothing waiting: answer without writing (no commit record to flush).
  IF NOT EXISTS (SELECT 1 FROM event_outbox WHERE position IS NULL) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(7461601);
  -- A new snapshot per statement (READ COMMITTED): this sees every pass that committed before the lock was ours.
  WITH waiting AS (
    SELECT id FROM event_outbox WHERE position IS NULL ORDER BY id LIMIT max_rows
  ), numbered AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM waiting
  ), counter AS (
    UPDATE event_outbox_watermark SET last_position = last_position + (SELECT count(*) FROM numbered)
     WHERE EXISTS (SELECT 1 FROM numbered)
     RETURNING last_position - (SELECT count(*) FROM numbered) AS base
  )
  UPDATE event_outbox o SET position = counter.base + numbered.n
    FROM numbered, counter
   WHERE o.id = numbered.id;
  GET DIAGNOSTICS assigned = ROW_COUNT;
  IF assigned = 0 THEN
    RETURN NULL;
  END IF;
  SELECT last_position INTO last FROM event_outbox_watermark;
  PERFORM pg_notify('task_server_outbox', last::text);
  RETURN last;
END $$;
