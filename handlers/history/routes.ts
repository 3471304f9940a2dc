import * as z from 'zod';
import { auditRecordSchema } from '../../core/audit/audit-record';
import { entitySnapshotSchema } from '../../core/history/entity-snapshots';
import { entitySnapshotsQuerySchema } from '../../core/history/state-snapshots';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const historySchema = z.object({ entries: z.array(auditRecordSchema), total: z.number().int() });
const taskHistorySchema = historySchema.extend({ taskId: z.string() });

const taskSnapshotAtSchema = z.object({
  snapshot: anyObject,
  exact: z.boolean(),
  at: z.date(),
  snapshot_id: z.string(),
  taken_at: z.date(),
  reason: z.string(),
});

const taskDiffSchema = z.object({
  taskId: z.string(),
  changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  from: z.date(),
  to: z.date(),
});

const stateSnapshotListSchema = z.object({ snapshots: z.array(entitySnapshotSchema), total: z.number().int() });

const revertPreviewSchema = z.object({
  snapshot: z.looseObject({ id: z.string(), entity_type: z.string(), entity_id: z.string(), revertable: z.boolean() }),
  currentState: anyObject.nullable(),
  snapshotState: anyObject,
});

const revertedSchema = z.object({ reverted: z.literal(true), entityType: z.string(), entityId: z.string(), snapshotId: z.string() });

/** Task history, state snapshots and their reverts (spec 01). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/history', handler: 'history/list-history', response: historySchema },
  { method: 'GET', path: '/api/history/:taskId', handler: 'history/list-task-history', response: taskHistorySchema },
  { method: 'GET', path: '/api/history/:taskId/snapshot', handler: 'history/get-task-snapshot', response: taskSnapshotAtSchema },
  { method: 'GET', path: '/api/history/:taskId/diff', handler: 'history/get-task-diff', response: taskDiffSchema },
  { method: 'GET', path: '/api/state-snapshots', handler: 'history/list-state-snapshots', response: stateSnapshotListSchema },
  {
    method: 'GET',
    path: '/api/snapshots/:entityType/:entityId',
    handler: 'history/list-entity-snapshots',
    query: entitySnapshotsQuerySchema,
    response: stateSnapshotListSchema,
  },
  {
    method: 'POST',
    path: '/api/snapshots/:snapshotId/preview-revert',
    handler: 'history/preview-snapshot-revert',
    response: revertPreviewSchema,
  },
  { method: 'POST', path: '/api/snapshots/:snapshotId/revert', handler: 'history/revert-snapshot', response: revertedSchema },
];
