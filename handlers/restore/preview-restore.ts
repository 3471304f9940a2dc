import { memorySource } from '../../core/snapshots/byte-sources';
import { previewRestore } from '../../core/restore/preview';
import { httpHandler, json, rawBodyOf } from '../middleware/http-handler';

/** POST /api/restore/preview {artifact} | {snapshot_id}: the body is read incrementally, never parsed whole. */
export const handler = httpHandler(
  async (event, app) => json(await previewRestore(app.deps, memorySource(rawBodyOf(event)), app.config.restoreMaxBytes)),
  { rawBody: true },
);
