import initialSchema from './0001_initial_schema';
import tasksAuditIndexes from './0100_tasks_audit_indexes';
import restoreSupport from './0400_restore_support';
import eventOutboxCommitOrder from './0600_event_outbox_commit_order';
import eventOutboxSequencer from './0900_event_outbox_sequencer';
import budgetUnpricedUsage from './0910_budget_unpriced_usage';
import routingExpectedUsage from './0920_routing_expected_usage';
import pricesAndBilling from './0930_prices_and_billing';
import agentTokens from './0940_agent_tokens';
import webhooks from './0950_webhooks';
import usageRollup from './0960_usage_rollup';
import agentTokenLastUse from './0970_agent_token_last_use';
import snapshotIndexPrefixes from './0980_snapshot_index_prefixes';
import outboxNotifyCarriesEvents from './0990_outbox_notify_carries_events';
import claimFreeTask from './1000_claim_free_task';
import claimDispatchedRun from './1010_claim_dispatched_run';
import auditSearchDeferred from './1020_audit_search_deferred';
import runStateJsonColumns from './1030_run_state_json_columns';
import outboxSequenceWithoutPrecheck from './1040_outbox_sequence_without_precheck';
import taskJsonSegments from './1050_task_json_segments';
import taskJsonWholeText from './1060_task_json_whole_text';
import taskJsonFlatMetadata from './1070_task_json_flat_metadata';
import consoleLookups from './1100_console_lookups';
import runtimeCosts from './1110_runtime_costs';
import boardColumnOrder from './1170_board_column_order';
import workflowDispatcher from './0200_workflow_dispatcher';
import workflowOwnerIndex from './0201_workflow_owner_index';
import chatMessages from './0500_chat_messages';
import runUsageByAgent from './0300_run_usage_by_agent';
import tasksListingOrder from './0700_tasks_listing_order';
import agentSafety from './0800_agent_safety';
import actionReceiptKinds from './0810_action_receipt_kinds';

/**
 * THE order of the migrations: applied in array order, each once, recorded by name in
 * schema_migrations (snapshot manifests list these names and restore compares them). The first
 * nine run in an order their names do not suggest; names cannot change (databases and artifacts
 * record them). New migrations append here from 0800, each named after the last. Never edit a
 * migration after it lands: add one. See README.md.
 */
export const migrations: ReadonlyArray<{ name: string; sql: string }> = [
  { name: '0001_initial_schema', sql: initialSchema },
  { name: '0600_event_outbox_commit_order', sql: eventOutboxCommitOrder },
  { name: '0400_restore_support', sql: restoreSupport },
  { name: '0100_tasks_audit_indexes', sql: tasksAuditIndexes },
  { name: '0200_workflow_dispatcher', sql: workflowDispatcher },
  { name: '0500_chat_messages', sql: chatMessages },
  { name: '0300_run_usage_by_agent', sql: runUsageByAgent },
  { name: '0201_workflow_owner_index', sql: workflowOwnerIndex },
  { name: '0700_tasks_listing_order', sql: tasksListingOrder },
  { name: '0800_agent_safety', sql: agentSafety },
  { name: '0810_action_receipt_kinds', sql: actionReceiptKinds },
  { name: '0900_event_outbox_sequencer', sql: eventOutboxSequencer },
  { name: '0910_budget_unpriced_usage', sql: budgetUnpricedUsage },
  { name: '0920_routing_expected_usage', sql: routingExpectedUsage },
  { name: '0930_prices_and_billing', sql: pricesAndBilling },
  { name: '0940_agent_tokens', sql: agentTokens },
  { name: '0950_webhooks', sql: webhooks },
  { name: '0960_usage_rollup', sql: usageRollup },
  { name: '0970_agent_token_last_use', sql: agentTokenLastUse },
  { name: '0980_snapshot_index_prefixes', sql: snapshotIndexPrefixes },
  { name: '0990_outbox_notify_carries_events', sql: outboxNotifyCarriesEvents },
  { name: '1000_claim_free_task', sql: claimFreeTask },
  { name: '1010_claim_dispatched_run', sql: claimDispatchedRun },
  { name: '1020_audit_search_deferred', sql: auditSearchDeferred },
  { name: '1030_run_state_json_columns', sql: runStateJsonColumns },
  { name: '1040_outbox_sequence_without_precheck', sql: outboxSequenceWithoutPrecheck },
  { name: '1050_task_json_segments', sql: taskJsonSegments },
  { name: '1060_task_json_whole_text', sql: taskJsonWholeText },
  { name: '1070_task_json_flat_metadata', sql: taskJsonFlatMetadata },
  { name: '1100_console_lookups', sql: consoleLookups },
  { name: '1110_runtime_costs', sql: runtimeCosts },
  { name: '1170_board_column_order', sql: boardColumnOrder },
];
