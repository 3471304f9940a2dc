import { describe, expect, it } from 'vitest';
import { actionKindNames } from '../../core/actions/catalog';
import { receiptKindsAt0810 } from '../../infra/db/migrations/0810_action_receipt_kinds';
import { migrations } from '../../infra/db/migrations/index';

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

  it('constrains action_receipts.kind to exactly the kinds the action catalog knows', () => {
    expect([...receiptKindsAt0810].sort()).toEqual([...actionKindNames].sort());
  });
});
