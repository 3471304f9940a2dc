import { downloadSnapshot } from '../../core/snapshots/list-snapshots';
import { httpHandler } from '../middleware/http-handler';
import { streamed } from '../middleware/responses';

/** GET /api/snapshots/:id/download: the raw artifact as an attachment named after the snapshot, streamed. */
export const handler = httpHandler(async (event, app) => {
  const download = await downloadSnapshot(app.deps, event.pathParameters?.id);
  return streamed(200, download.chunks, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(download.sizeBytes),
    'content-disposition': `attachment; filename="${download.fileName}"`,
  });
});
