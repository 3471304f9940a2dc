import { downloadSnapshot } from '../../core/snapshots/list-snapshots';
import { httpHandler } from '../middleware/http-handler';
import { COLLECTED_BODY_MAX_BYTES, streamed } from '../middleware/responses';

/**
 * GET /api/snapshots/:id/download: the raw artifact as an attachment named after the snapshot,
 * streamed; or a 302 to the bucket's pre-signed URL (S3 store) when asked or when the artifact is
 * larger than a Lambda response can carry.
 */
export const handler = httpHandler(async (event, app) => {
  const download = await downloadSnapshot(app.deps, event.pathParameters?.id, event.queryStringParameters, COLLECTED_BODY_MAX_BYTES);
  if ('redirectUrl' in download) {
    return { statusCode: 302, headers: { location: download.redirectUrl, 'cache-control': 'no-store' }, body: '' };
  }
  return streamed(200, download.chunks, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(download.sizeBytes),
    'content-disposition': `attachment; filename="${download.fileName}"`,
  });
});
