-- action_receipts.kind takes spec 02's closed list (the six envelope kinds, plus snapshot.create and
-- task.update for the tool server). The list is written out, not imported from the catalog: a
-- migration never changes after it lands, while the catalog may grow (with a migration of its own).
-- Receipts were only ever written after envelope validation, so existing rows already satisfy it.

ALTER TABLE action_receipts ADD CONSTRAINT action_receipts_kind_check
  CHECK (kind IN ('task.assign', 'run.dispatch', 'approval.decide', 'run.cancel', 'run.redispatch', 'task.create', 'snapshot.create', 'task.update'));
