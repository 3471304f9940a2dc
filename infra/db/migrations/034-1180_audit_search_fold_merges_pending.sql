-- A fold leaves the trigram index searchable at once. The GIN index of audit_search takes new
-- entries into its pending list (fastupdate), which only a vacuum, an autoanalyze or an
-- overflow of gin_pending_list_limit (4 MB) merges into the index proper. Until then every search
-- reads the whole list, and the planner, costing that list, prefers a sequential scan of
-- audit_search: measured on PostgreSQL 15, 60,000 folded rows with 402 pending pages planned
-- `Seq Scan` for `q=row 12345`, a bitmap index scan once the list was merged. When that happens
-- depended on autovacuum's timing.
--
-- `audit_search_fold` now merges the list after a batch that moved rows (measured: 20,000 rows
-- folded in 0.66 s, their merge 27 ms; `fastupdate = off` took 4.5-6.3 s for the same rows and a
-- 64 KB list 2-4.5 s). `gin_clean_pending_list` needs the index's owner (the role that migrated);
-- a role that does not own it folds as before and leaves the merge to autovacuum. Without the index
-- (a bulk load drops it and builds it after, as bench/tasks-endpoints.ts does) there is nothing to merge.

CREATE OR REPLACE FUNCTION audit_search_fold(max_rows integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  moved integer;
  search_index regclass := to_regclass('audit_search_text_trgm');
BEGIN
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
  SELECT count(*)::int INTO moved FROM picked;
  IF moved > 0 AND search_index IS NOT NULL AND pg_has_role((SELECT c.relowner FROM pg_class c WHERE c.oid = search_index), 'USAGE') THEN
    PERFORM gin_clean_pending_list(search_index);
  END IF;
  RETURN moved;
END $$;
