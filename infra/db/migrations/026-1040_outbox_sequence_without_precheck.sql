-- A sequencing pass no longer asks "is anything waiting?" before it takes the sequencers' lock.
--
-- That question (`NOT EXISTS (… WHERE position IS NULL)`) is planned once per connection and kept
-- by PL/pgSQL, with the statistics of that moment. Planned on a small or freshly truncated outbox
-- (a new install, a test, the benchmarks), it became a sequential scan of the whole table, run by
-- every pass until an ANALYZE happened to replan it: with 11,000 outbox rows it was 1.75 ms of a
-- 1.7–2 ms pass, growing with the table, and every event's delivery waited for it. The numbering
-- statement itself reads the waiting rows through `event_outbox_unsequenced` whatever the
-- statistics say (its ORDER BY id LIMIT asks for that index's order), and when nothing waits it
-- writes nothing either: the counter's UPDATE has no row to change and the pass commits no WAL.
-- The only cost of asking there is taking the transaction-scoped lock for an empty pass, which a
-- runner's safety-net timer does a few times a second.
--
-- Otherwise the same function as migration 0990.

CREATE OR REPLACE FUNCTION event_outbox_sequence(max_rows integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  assigned bigint;
  last bigint;
  carried text;
BEGIN
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
