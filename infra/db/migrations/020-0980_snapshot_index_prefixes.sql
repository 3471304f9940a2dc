-- Every reader of entity_snapshots orders by (created_at DESC, seq DESC) since 0100, whose two
-- indexes also serve their prefixes: the two of 0001 only cost every mutation two more index
-- inserts on the write path.

DROP INDEX IF EXISTS entity_snapshots_entity;
DROP INDEX IF EXISTS entity_snapshots_created;
