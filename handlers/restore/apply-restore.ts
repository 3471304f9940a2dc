import { applyRestore } from '../../core/restore/apply';
import { memorySource } from '../../core/snapshots/byte-sources';
import { httpHandler, json, rawBodyOf } from '../middleware/http-handler';

/** POST /api/restore/apply {artifact | snapshot_id, mode?, restoreId}: the body is read incrementally, never parsed whole. */
export const handler = httpHandler(
  async (event, app) => json(await applyRestore(app.deps, memorySource(rawBodyOf(event)), app.config.restoreMaxBytes)),
  { rawBody: true },
);
