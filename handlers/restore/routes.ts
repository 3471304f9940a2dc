import * as z from 'zod';
import { tablePreviewSchema } from '../../core/restore/preview';
import { restoreStatusSchema } from '../../core/restore/restore-status';
import { anyObject, counts } from '../openapi/report-schemas';
import type { Route } from '../route';

const restorePreviewSchema = z.object({
  schema_compat: z.literal('ok'),
  warnings: z.array(z.string()),
  warning_details: z.array(anyObject),
  tables: z.record(z.string(), tablePreviewSchema),
  totals: counts,
  settings: z.object({ keys: z.array(z.string()), dropped: z.boolean() }),
  snapshot_id: z.string(),
  created_at: z.string(),
  timestamp: z.string(),
});

const restoreAppliedSchema = z.object({
  restoreId: z.string(),
  duplicate: z.boolean(),
  resumed: z.boolean(),
  warnings: z.array(z.string()),
  summary: anyObject,
});

/** Restore from a snapshot (spec 02). */
export const routes: readonly Route[] = [
  { method: 'POST', path: '/api/restore/preview', handler: 'restore/preview-restore', largeBody: true, response: restorePreviewSchema },
  { method: 'POST', path: '/api/restore/apply', handler: 'restore/apply-restore', largeBody: true, response: restoreAppliedSchema },
  { method: 'GET', path: '/api/restore/:restoreId', handler: 'restore/get-restore-status', response: restoreStatusSchema },
];
