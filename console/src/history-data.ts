import type { operations } from '../../mcp/task-server-paths';
import { api, expectData, undescribed } from './api';

/** An entity's recorded versions and their revert (the task page's History, the Audit screen's entity history). */
export type Version = operations['historyListEntitySnapshots']['responses'][200]['content']['application/json']['snapshots'][number];
export type RevertPreview = operations['historyPreviewSnapshotRevert']['responses'][200]['content']['application/json'];

/** GET /api/snapshots/:entityType/:entityId: the entity's versions, newest first. */
export const loadVersions = (entityType: string, entityId: string, limit = 50) =>
  expectData(
    api().GET('/api/snapshots/{entityType}/{entityId}', { params: { path: { entityType, entityId }, query: { limit: String(limit) } } }),
  ).then((r) => r.snapshots);
export const previewRevert = (snapshotId: string) =>
  expectData(api().POST('/api/snapshots/{snapshotId}/preview-revert', { params: { path: { snapshotId } } }));
export const revert = (snapshotId: string) =>
  expectData(api().POST('/api/snapshots/{snapshotId}/revert', { params: { path: { snapshotId } }, body: undescribed({}) }));
