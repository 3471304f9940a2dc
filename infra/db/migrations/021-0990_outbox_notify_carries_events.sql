-- A sequencing pass's NOTIFY carries the events it numbered, when they are few and small.
--
-- Until now the payload was the last position handed out, and every runner's listener answered
-- it with a read of the rows after its cursor: one more round trip between a commit and the
-- frames its clients get, and one read per pass per runner for the database. Now a pass of at
-- most 64 rows whose JSON fits in a notification (PostgreSQL refuses payloads of 8000 bytes or
-- more) sends them as a JSON array of {id, channel, name, payload} (the shape readOutboxAfter
-- answers, `payload` as the stored JSON text); a larger pass still sends its last position. A
-- listener uses a carried array only when it starts right after its cursor, and reads otherwise:
-- notifications arrive in the order passes commit, so a listener that missed none needs no read.

CREATE OR REPLACE FUNCTION event_outbox_sequence(max_rows integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  assigned bigint;
  last bigint;
  carried text;
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
  ), done AS (
    UPDATE event_outbox o SET position = counter.base + numbered.n
      FROM numbered, counter
     WHERE o.id = numbered.id
    RETURNING numbered.n, o.position, o.channel, o.name, o.payload
  )
  SELECT count(*),
         json_agg(json_build_object('id', position, 'channel', channel, 'name', name, 'payload', payload::text) ORDER BY position)
           FILTER (WHERE n <= 64)::text
    INTO assigned, carried
    FROM done;
  IF assigned = 0 THEN
    RETURN NULL;
  END IF;
  SELECT last_position INTO last FROM event_outbox_watermark;
  IF assigned <= 64 AND octet_length(carried) < 7900 THEN
    PERFORM pg_notify('task_server_outbox', carried);
  ELSE
    PERFORM pg_notify('task_server_outbox', last::text);
  END IF;
  RETURN last;
END $$;
