import { migrations } from './index';

/** Today's text of a landed migration, which a repair may run again. */
function todaysText(name: string): string {
  const migration = migrations.find((m) => m.name === name);
  if (!migration) throw new Error(`landed-edits.ts names ${name}, which is not a migration`);
  return migration.sql;
}

/**
 * A migration whose text changed after it had landed on main, and how a database migrated by an
 * earlier text is brought to what the current text leaves. `needed` is a query answering one row
 * with a boolean `needed`: true only when the database holds what an earlier text made, so a
 * database migrated by the current texts is never touched (no DDL, no replanning).
 */
export interface LandedEdit {
  migration: string;
  /** The commits whose text of the migration differs from today's: the earlier ones. */
  earlierTexts: readonly string[];
  needed: string;
  sql: string;
}

/**
 * Every edit made to a landed migration (the README forbids them; these predate the check in
 * test/unit/migrations.test.ts that holds every landed text to its hash). migrate() runs the ones
 * a database needs before it applies pending migrations, since a later migration may rely on what
 * the current text made: 1000 called with today's argument types, 1030 calling 1000's js_iso.
 * Migration 1010's earlier text (61989d8) differs only in run_state_json, which 1030 replaces.
 */
export const landedEdits: readonly LandedEdit[] = [
  {
    // the fencing token's column was named lock_token, which snapshot redaction blanks as a secret
    migration: '0800_agent_safety',
    earlierTexts: ['3a13dff'],
    needed: `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'tasks'::regclass AND attname = 'lock_token' AND NOT attisdropped)
                AND NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'tasks'::regclass AND attname = 'lock_generation' AND NOT attisdropped) AS needed`,
    // the constraints named after the column follow it: its CHECK, and from PostgreSQL 18 its NOT NULL
    sql: `
ALTER TABLE tasks RENAME COLUMN lock_token TO lock_generation;
DO $$
DECLARE
  named record;
BEGIN
  FOR named IN SELECT conname FROM pg_constraint WHERE conrelid = 'tasks'::regclass AND conname LIKE 'tasks\\_lock\\_token\\_%' LOOP
    EXECUTE format('ALTER TABLE tasks RENAME CONSTRAINT %I TO %I', named.conname, replace(named.conname, 'lock_token', 'lock_generation'));
  END LOOP;
END $$;`,
  },
  {
    // a full unique index on position and a btree on created_at, where writers now touch neither
    migration: '0900_event_outbox_sequencer',
    earlierTexts: ['2cfe0f1'],
    needed: `SELECT EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('event_outbox_position') AND indpred IS NULL)
                OR EXISTS (SELECT 1 FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = to_regclass('event_outbox_created') AND a.amname <> 'brin') AS needed`,
    sql: `
DROP INDEX event_outbox_position;
CREATE UNIQUE INDEX event_outbox_position ON event_outbox (position) WHERE position IS NOT NULL;
DROP INDEX event_outbox_created;
CREATE INDEX event_outbox_created ON event_outbox USING brin (created_at);`,
  },
  {
    // both earlier texts lack js_iso and js_number; the first took claim_free_task's time, snapshot
    // id and event payload typed, where callers now send text; task_state_json listed its columns
    migration: '1000_claim_free_task',
    earlierTexts: ['1f013ce', '61989d8'],
    needed: `SELECT to_regprocedure('js_iso(timestamptz)') IS NULL AS needed`,
    sql: `
DROP FUNCTION IF EXISTS claim_free_task(uuid, text, timestamptz, integer, uuid, text, text, jsonb, text);
DROP FUNCTION IF EXISTS claim_free_task(uuid, text, text, integer, text, text, text, text, text);
DROP FUNCTION IF EXISTS task_state_json(tasks, boolean);
${todaysText('1000_claim_free_task')}`,
  },
];
