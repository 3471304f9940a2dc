import { agentRead } from '../../core/auth/agent-rules';
import type { Route } from './route';

/** Full-state snapshots, restore, settings (spec 02). */
export const snapshotRoutes: readonly Route[] = [
  { method: 'POST', path: '/api/snapshots', handler: 'snapshots/create-snapshot' },
  { method: 'GET', path: '/api/snapshots', handler: 'snapshots/list-snapshots', agent: agentRead },
  { method: 'GET', path: '/api/snapshots/:id/download', handler: 'snapshots/download-snapshot' },
  { method: 'POST', path: '/api/restore/preview', handler: 'restore/preview-restore', largeBody: true },
  { method: 'POST', path: '/api/restore/apply', handler: 'restore/apply-restore', largeBody: true },
  { method: 'GET', path: '/api/settings', handler: 'settings/get-settings' },
  { method: 'PATCH', path: '/api/settings', handler: 'settings/update-settings' },
  { method: 'GET', path: '/api/settings/overview', handler: 'settings/get-settings-overview' },
  { method: 'GET', path: '/api/restore/:restoreId', handler: 'restore/get-restore-status' },
];
