import { downloadSnapshot } from '../../core/snapshots/list-snapshots';
import { snapshotDeps } from '../../infra/snapshots/snapshot-deps';
import { httpHandler } from '../middleware/http-handler';

/** GET /api/snapshots/:id/download: the raw artifact as an attachment named after the snapshot. */
export const handler = httpHandler(async (event, app) => {
  const { fileName, content } = await downloadSnapshot(snapshotDeps(app), event.pathParameters?.id);
  return {
    statusCode: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="${fileName}"`,
    },
    body: Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8'),
  };
});
