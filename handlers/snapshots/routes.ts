import * as z from 'zod';
import { agentRead } from '../../core/auth/agent-rules';
import { snapshotListEntrySchema } from '../../core/snapshots/manifest';
import { anyObject } from '../openapi/report-schemas';
import type { Route } from '../route';

const createdSnapshotSchema = z.object({ snapshot_id: z.string(), manifest: anyObject });

/** Full-state snapshots (spec 02). */
export const routes: readonly Route[] = [
  { method: 'POST', path: '/api/snapshots', handler: 'snapshots/create-snapshot', success: [201], response: createdSnapshotSchema },
  {
    method: 'GET',
    path: '/api/snapshots',
    handler: 'snapshots/list-snapshots',
    agent: agentRead,
    response: z.object({ available: z.literal(true), count: z.number().int(), snapshots: z.array(snapshotListEntrySchema) }),
  },
  // the artifact itself (streamed), or a redirect to the object store
  { method: 'GET', path: '/api/snapshots/:id/download', handler: 'snapshots/download-snapshot', success: [200, 302], response: anyObject },
];
