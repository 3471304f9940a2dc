-- What restore apply (spec 02) needs from the schema:
-- - rows written back keep the modification time the artifact recorded, so the trigger that
--   maintains updated_at stands aside while the transaction-local setting task_server.restoring
--   is on (every other writer sees no change);
-- - a batch of tasks may name a parent that a later batch of the same table brings, so the
--   self-reference is checked at commit within a restore (DEFERRABLE, still IMMEDIATE by default).

CREATE OR REPLACE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('task_server.restoring', true) = 'on' THEN
    RETURN NEW;
  END IF;
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $$;

ALTER TABLE tasks ALTER CONSTRAINT tasks_parent_task_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
