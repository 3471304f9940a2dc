import type { operations } from '../../mcp/task-server-paths';
import { fileNameOf } from './audit-data';
import { api, expectData, problemOf, undescribed } from './api';

/** The Snapshots screen's reads and writes, each one route of the API. */
export type SnapshotEntry = operations['snapshotsListSnapshots']['responses'][200]['content']['application/json']['snapshots'][number];
export type RestorePreview = operations['restorePreviewRestore']['responses'][200]['content']['application/json'];
export type RestoreStatus = operations['restoreGetRestoreStatus']['responses'][200]['content']['application/json'];
export type RestoreApplied = operations['restoreApplyRestore']['responses'][200]['content']['application/json'];
export type RestoreMode = 'merge' | 'replace';

/** One table of a restore preview: its counts and a sample of its rows (core/restore/preview.ts). */
export type TablePreview = RestorePreview['tables'][string];

export const loadSnapshots = () => expectData(api().GET('/api/snapshots')).then((r) => r.snapshots);

export const createSnapshot = (name: string | undefined) =>
  expectData(api().POST('/api/snapshots', { body: undescribed(name ? { name } : {}) }));

export async function downloadSnapshot(id: string): Promise<{ blob: Blob; fileName: string }> {
  const result = await api().GET('/api/snapshots/{id}/download', { params: { path: { id } }, parseAs: 'blob' });
  if (!result.response.ok || !result.data) throw new Error(problemOf(result.error, result.response));
  return { blob: result.data as Blob, fileName: fileNameOf(result.response) ?? `${id}.json` };
}

export const previewRestore = (snapshotId: string) =>
  expectData(api().POST('/api/restore/preview', { body: undescribed({ snapshot_id: snapshotId }) }));

export const applyRestore = (snapshotId: string, mode: RestoreMode, restoreId: string) =>
  expectData(api().POST('/api/restore/apply', { body: undescribed({ snapshot_id: snapshotId, mode, restoreId }) }));

export const loadRestoreStatus = (restoreId: string) =>
  expectData(api().GET('/api/restore/{restoreId}', { params: { path: { restoreId } } }));

/**
 * A version 4 UUID for a new restore. crypto.randomUUID exists only in secure contexts, and a console
 * served over plain HTTP from another host than localhost is not one; getRandomValues is everywhere.
 */
export function newRestoreId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
