import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An in-process S3-compatible HTTP server for the S3 snapshot store's tests: path-style addressing,
 * one bucket, the operations the store uses (PutObject, GetObject with Range and If-Match, HeadObject,
 * ListObjectsV2 with continuation tokens, DeleteObject) and pre-signed GETs, with S3's status codes
 * and XML error bodies. Requests must carry SigV4 credentials (header or query) as S3 demands, though
 * signatures are not verified. No npm S3 server qualified: s3rver, the usual in-process choice, has
 * been unmaintained since 2021.
 */
export interface FakeS3 {
  endpoint: string;
  bucket: string;
  /** Object keys and bodies, for assertions. */
  objects: Map<string, Buffer>;
  /** Every request as `METHOD path?query`, for asserting what the store asked. */
  requests: string[];
  close(): Promise<void>;
}

interface StoredObject {
  body: Buffer;
  etag: string;
  modified: Date;
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function errorXml(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`);
}

export async function startFakeS3(options: { bucket?: string; maxKeys?: number } = {}): Promise<FakeS3> {
  const bucket = options.bucket ?? 'task-server-snapshots';
  const pageSize = options.maxKeys ?? 1000;
  const store = new Map<string, StoredObject>();
  const requests: string[] = [];

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3.test');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);

    const signed =
      req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ') ||
      (url.searchParams.has('X-Amz-Signature') && url.searchParams.has('X-Amz-Credential'));
    if (!signed) return errorXml(res, 403, 'AccessDenied', 'request is not signed');
    const [, bucketName, ...keyParts] = url.pathname.split('/');
    if (bucketName !== bucket) return errorXml(res, 404, 'NoSuchBucket', `no bucket ${bucketName}`);
    const key = decodeURIComponent(keyParts.join('/'));

    if (!key) {
      if (req.method !== 'GET' || url.searchParams.get('list-type') !== '2')
        return errorXml(res, 501, 'NotImplemented', 'only ListObjectsV2 on a bucket');
      const prefix = url.searchParams.get('prefix') ?? '';
      const after = url.searchParams.get('continuation-token') ?? '';
      const limit = Math.min(pageSize, Number(url.searchParams.get('max-keys') ?? 1000));
      const keys = [...store.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
      const page = keys.slice(0, limit);
      const truncated = keys.length > page.length;
      const contents = page
        .map((k) => {
          const o = store.get(k)!;
          return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.modified.toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
        })
        .join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${limit}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${truncated ? `<NextContinuationToken>${xmlEscape(page.at(-1)!)}</NextContinuationToken>` : ''}</ListBucketResult>`,
      );
      return;
    }

    if (req.method === 'PUT') {
      if (String(req.headers['content-encoding'] ?? '').includes('aws-chunked'))
        return errorXml(res, 501, 'NotImplemented', 'aws-chunked uploads are not supported here');
      if (req.headers['content-length'] === undefined || Number(req.headers['content-length']) !== body.length) {
        return errorXml(res, 411, 'MissingContentLength', 'a PUT needs a Content-Length that matches its body');
      }
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      store.set(key, { body, etag, modified: new Date() });
      res.writeHead(200, { etag });
      return res.end();
    }
    if (req.method === 'DELETE') {
      store.delete(key);
      res.writeHead(204);
      return res.end();
    }
    const object = store.get(key);
    if (req.method === 'HEAD') {
      if (!object) {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(200, {
        'content-length': object.body.length,
        etag: object.etag,
        'last-modified': object.modified.toUTCString(),
        'content-type': 'application/json',
      });
      return res.end();
    }
    if (req.method !== 'GET') return errorXml(res, 405, 'MethodNotAllowed', `${req.method} is not allowed`);
    if (!object) return errorXml(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    if (req.headers['if-match'] && req.headers['if-match'] !== object.etag)
      return errorXml(res, 412, 'PreconditionFailed', 'If-Match did not match');
    const headers: Record<string, string | number> = {
      etag: object.etag,
      'content-type': url.searchParams.get('response-content-type') ?? 'application/json',
    };
    const disposition = url.searchParams.get('response-content-disposition');
    if (disposition) headers['content-disposition'] = disposition;
    const range = /^bytes=(\d+)-(\d+)?$/.exec(String(req.headers.range ?? ''));
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(object.body.length - 1, range[2] === undefined ? object.body.length - 1 : Number(range[2]));
      if (start >= object.body.length) return errorXml(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
      res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${object.body.length}`, 'content-length': end - start + 1 });
      return res.end(object.body.subarray(start, end + 1));
    }
    res.writeHead(200, { ...headers, 'content-length': object.body.length });
    res.end(object.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const objects = new Map<string, Buffer>();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    get objects() {
      objects.clear();
      for (const [k, o] of store) objects.set(k, o.body);
      return objects;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
