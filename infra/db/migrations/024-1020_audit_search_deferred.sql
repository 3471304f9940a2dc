-- The audit search index off the write path. Every mutation writes audit rows, and the
-- trigram index over their text (search_text, migration 0001) was most of what an audited write
-- cost the database: a dispatcher tick of 11,000 runs spent about a quarter of its time in it.
--
-- The searchable text now lives in audit_search, one row per audit row, under the trigram index;
-- it is written later, in batches, by `audit_search_fold()` (each dispatcher tick). In between, an
-- audit row's id waits in audit_search_pending, put there by a statement trigger in the same
-- transaction as the audit row (an insert of small keys, no lock another writer waits for). A
-- fold moves ids from pending to audit_search in one transaction, so every committed audit row is
-- in exactly one of the two whatever a reader's snapshot: GET /api/audit?q= matches the indexed
-- text and computes the text of the pending rows, and finds a row the moment it commits.
--
-- Deleting, updating or truncating audit rows (restore, tests) keeps both tables true through the
-- same kind of triggers; no foreign key, so that TRUNCATE audit_log keeps working alone.
-- `audit_search_text` is the one definition of the searchable text (the former generated column's).

CREATE FUNCTION audit_search_text(actor text, action text, entity_type text, old_value jsonb, new_value jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lower(actor || ' ' || action || ' ' || entity_type || ' ' || coalesce(old_value::text, '') || ' ' || coalesce(new_value::text, ''))
$$;

CREATE TABLE audit_search (
  audit_id bigint PRIMARY KEY,
  search_text text NOT NULL
);
INSERT INTO audit_search (audit_id, search_text) SELECT id, search_text FROM audit_log;
CREATE INDEX audit_search_text_trgm ON audit_search USING gin (search_text gin_trgm_ops);

CREATE TABLE audit_search_pending (audit_id bigint PRIMARY KEY);

DROP INDEX audit_log_search;
ALTER TABLE audit_log DROP COLUMN search_text;

CREATE FUNCTION audit_search_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM audit_search s USING new_rows n WHERE s.audit_id = n.id;
  END IF;
  INSERT INTO audit_search_pending (audit_id) SELECT id FROM new_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE FUNCTION audit_search_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE audit_search, audit_search_pending;
  ELSE
    DELETE FROM audit_search s USING old_rows o WHERE s.audit_id = o.id;
    DELETE FROM audit_search_pending p USING old_rows o WHERE p.audit_id = o.id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER audit_log_search_insert AFTER INSERT ON audit_log
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_search_enqueue();
CREATE TRIGGER audit_log_search_update AFTER UPDATE ON audit_log
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_search_enqueue();
CREATE TRIGGER audit_log_search_delete AFTER DELETE ON audit_log
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_search_forget();
CREATE TRIGGER audit_log_search_truncate AFTER TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_search_forget();

-- Moves up to max_rows pending ids (oldest first) into audit_search; answers how many it moved.
-- SKIP LOCKED: two folds at once (two runners' ticks) take different rows.
CREATE FUNCTION audit_search_fold(max_rows integer) RETURNS integer LANGUAGE sql AS $$
  WITH picked AS (
    DELETE FROM audit_search_pending p
     WHERE p.audit_id IN (SELECT audit_id FROM audit_search_pending ORDER BY audit_id LIMIT max_rows FOR UPDATE SKIP LOCKED)
    RETURNING p.audit_id),
  indexed AS (
    INSERT INTO audit_search (audit_id, search_text)
    SELECT a.id, audit_search_text(a.actor, a.action, a.entity_type, a.old_value, a.new_value)
      FROM audit_log a JOIN picked ON picked.audit_id = a.id
    ON CONFLICT (audit_id) DO UPDATE SET search_text = EXCLUDED.search_text
    RETURNING 1)
  SELECT count(*)::int FROM picked
$$;
