import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionKindNames } from '../../core/actions/catalog';
import { migrations } from '../../infra/db/migrations/index';
import { landedEdits } from '../../infra/db/migrations/landed-edits';
import {
  migrationFiles,
  migrationSql,
  migrationsDirectory,
  migrationsModuleFile,
  migrationsModuleSource,
} from '../../scripts/migrations-module.mjs';

/** The order the first migrations landed in; their names cannot change, so neither can this. */
const historical = [
  '0001_initial_schema',
  '0600_event_outbox_commit_order',
  '0400_restore_support',
  '0100_tasks_audit_indexes',
  '0200_workflow_dispatcher',
  '0500_chat_messages',
  '0300_run_usage_by_agent',
  '0201_workflow_owner_index',
  '0700_tasks_listing_order',
];

/**
 * The SQL each migration ran when it landed (the first 16 hex digits of its SHA-256). A database
 * records only a migration's name, so a text changed after it landed leaves databases migrated by
 * the earlier one behind, unnoticed until a later migration fails on them
 * (infra/db/migrations/landed-edits.ts repairs the four edits made before this check). A new
 * migration adds its line here when it lands; a line never changes.
 */
const landedTexts: ReadonlyArray<readonly [string, string]> = [
  ['0001_initial_schema', 'f92df02121623848'],
  ['0600_event_outbox_commit_order', 'ecfc3b1b654a0dfe'],
  ['0400_restore_support', '8e726c6e9718a74c'],
  ['0100_tasks_audit_indexes', 'a85198be5bcc5575'],
  ['0200_workflow_dispatcher', '2c715fe81bb4b3cd'],
  ['0500_chat_messages', 'e64748a7f23ac68f'],
  ['0300_run_usage_by_agent', '23e4a9d15ce5a723'],
  ['0201_workflow_owner_index', 'a2d78c5c4b901a31'],
  ['0700_tasks_listing_order', '33f5aff07120b503'],
  ['0800_agent_safety', '8591c80db1696908'],
  ['0810_action_receipt_kinds', '0372329a0a774d1a'],
  ['0900_event_outbox_sequencer', 'fb5d78fd3ea74035'],
  ['0910_budget_unpriced_usage', '7adcb43e1629fe0f'],
  ['0920_routing_expected_usage', '2dd8d7cecbebd30d'],
  ['0930_prices_and_billing', '9ac566b8cbca2f48'],
  ['0940_agent_tokens', 'ffa6089da196e347'],
  ['0950_webhooks', '1bd722fa4a4bb28a'],
  ['0960_usage_rollup', 'd2c28ccca21c42ce'],
  ['0970_agent_token_last_use', '373365f1e683282a'],
  ['0980_snapshot_index_prefixes', '0a38e63e002037ad'],
  ['0990_outbox_notify_carries_events', 'b5debb58d075e592'],
  ['1000_claim_free_task', '90676d9667cc9ff4'],
  ['1010_claim_dispatched_run', 'eb6c8693f0c17845'],
  ['1020_audit_search_deferred', '127a500ff1634ace'],
  ['1030_run_state_json_columns', 'daec48416cc21adc'],
  ['1040_outbox_sequence_without_precheck', '8a547095a048b3a4'],
  ['1050_task_json_segments', '3966f93d77a90ed0'],
  ['1060_task_json_whole_text', 'fb3419fc0921caaf'],
  ['1070_task_json_flat_metadata', '21afb82f99075911'],
  ['1100_console_lookups', 'ff1b254f19f393c9'],
  ['1110_runtime_costs', '2b3b0f75d363b465'],
  ['1120_receipts_by_target', '603b875c0b88c402'],
  ['1170_board_column_order', 'be05e8a92fce040c'],
  ['1180_audit_search_fold_merges_pending', '4ff0a15ac6faa565'],
];

describe('the migration list (infra/db/migrations/README.md)', () => {
  const names = migrations.map((m) => m.name);

  it('starts with the historical order, unchanged', () => {
    expect(names.slice(0, historical.length)).toEqual(historical);
  });

  it('appends every later migration from 0800, each named after the one before', () => {
    const later = names.slice(historical.length);
    expect(later.length).toBeGreaterThan(0);
    expect(later[0]! >= '0800').toBe(true);
    for (let i = 1; i < later.length; i++) expect(later[i]! > later[i - 1]!, `${later[i]} after ${later[i - 1]}`).toBe(true);
  });

  it('names each migration once, as NNNN_words', () => {
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^\d{4}_[a-z0-9_]+$/);
  });

  it('runs the SQL each migration landed with: a landed text never changes (the header comment may)', () => {
    const texts = migrations.map((m) => [m.name, createHash('sha256').update(m.sql).digest('hex').slice(0, 16)]);
    expect(texts).toEqual(landedTexts);
  });

  it('repairs earlier texts only of migrations in the list, each once', () => {
    const names = new Set(migrations.map((m) => m.name));
    for (const edit of landedEdits) expect(names.has(edit.migration), edit.migration).toBe(true);
    expect(new Set(landedEdits.map((e) => e.migration)).size).toBe(landedEdits.length);
  });

  it('constrains action_receipts.kind to exactly the kinds the action catalog knows', () => {
    const sql = migrations.find((m) => m.name === '0810_action_receipt_kinds')!.sql;
    const list = /CHECK \(kind IN \(([^)]*)\)\)/.exec(sql)![1]!;
    const receiptKindsAt0810 = [...list.matchAll(/'([^']+)'/g)].map(([, kind]) => kind!);
    expect(receiptKindsAt0810.sort()).toEqual([...actionKindNames].sort());
  });
});

describe('the migration files (infra/db/migrations/README.md)', () => {
  it('are listed as they sort: `ls infra/db/migrations` shows the order they run in', () => {
    const files = readdirSync(migrationsDirectory).filter((f) => f.endsWith('.sql'));
    expect(files.length).toBe(migrations.length);
    expect(files.sort().map((f) => f.replace(/^\d{3}-|\.sql$/g, ''))).toEqual(migrations.map((m) => m.name));
  });

  it('make index.ts as it is committed (`npm run db:migrations` writes it)', () => {
    expect(
      readFileSync(migrationsModuleFile, 'utf8') === migrationsModuleSource(),
      'infra/db/migrations/index.ts is stale: run npm run db:migrations',
    ).toBe(true);
  });

  it('run the SQL after their header: the `--` lines a file starts with', () => {
    expect(migrationSql('-- why\n--\n-- and how\n\nCREATE INDEX a ON t (c);\n-- a comment the SQL keeps\n')).toBe(
      '\nCREATE INDEX a ON t (c);\n-- a comment the SQL keeps\n',
    );
    expect(migrationSql('SELECT 1;\n')).toBe('SELECT 1;\n');
  });

  it('refuse a folder whose files skip a number, repeat one, or are named otherwise', () => {
    const folder = (files: string[]) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
      for (const file of files) writeFileSync(path.join(dir, file), '-- header\n\nSELECT 1;\n');
      try {
        return migrationFiles(dir).map((m) => m.name);
      } finally {
        rmSync(dir, { recursive: true });
      }
    };
    expect(folder(['001-0001_first.sql', '002-0800_second.sql'])).toEqual(['0001_first', '0800_second']);
    expect(() => folder(['001-0001_first.sql', '003-0800_second.sql'])).toThrow(/003-0800_second.sql: expected the number 002/);
    expect(() => folder(['001-0001_first.sql', '001-0800_second.sql'])).toThrow(/001-0800_second.sql: expected the number 002/);
    expect(() => folder(['001-0001_first.sql', '002_second.sql'])).toThrow(/named NNN-NNNN_words.sql/);
  });
});
