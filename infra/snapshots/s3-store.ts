import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ArtifactWriter, ByteSource, SnapshotStore, StoredArtifact } from '../../core/ports';
import { isSnapshotId } from './file-store';
import { SpooledBody } from './spooled-body';

/**
 * Snapshot artifacts as objects `<prefix><snapshot id>.json` in an S3 bucket, so that every Lambda
 * instance (and every container replica) sees the same registry; the local directory store cannot
 * do that, as each instance has its own /tmp.
 *
 * A writer spools the body to a temporary file (an artifact may be far larger than memory should
 * hold) and uploads head + body + tail in one PutObject at commit: S3 makes an object visible only
 * when its upload completes, which is the same all-or-nothing the file store gets from rename.
 */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix, e.g. `snapshots/`; several deployments may share one bucket under different prefixes. */
  prefix: string;
  /** An S3-compatible endpoint (MinIO, LocalStack, the test's fake); path-style addressing is used then. */
  endpoint?: string;
  /** Seconds a pre-signed download URL stays valid. */
  downloadUrlSeconds?: number;
}

// Loaded on first use, so that a deployment without SNAPSHOT_BUCKET never loads the SDK, and a Lambda
// bundle (which leaves @aws-sdk/* to the runtime) starts without it.
type S3Sdk = typeof import('@aws-sdk/client-s3');
let sdkLoading: Promise<S3Sdk> | undefined;
const s3Sdk = () => (sdkLoading ??= import('@aws-sdk/client-s3'));

function s3Client(sdk: S3Sdk, endpoint: string | undefined): S3Client {
  return new sdk.S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    // Plain PUT bodies with a Content-Length rather than aws-chunked uploads with trailing
    // checksums: every S3-compatible store accepts them, and the streamed body needs no rewind.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

class S3ArtifactWriter implements ArtifactWriter {
  private readonly body: SpooledBody;
  private uploaded = false;

  constructor(
    private readonly put: (body: Readable, length: number) => Promise<void>,
    private readonly remove: () => Promise<void>,
    private readonly spoolDir: string,
    body: FileHandle,
  ) {
    this.body = new SpooledBody(body);
  }

  private get bodyPath() {
    return path.join(this.spoolDir, 'body');
  }

  async write(text: string): Promise<void> {
    if (this.body.add(text)) await this.body.flush();
  }

  async commit(head: string, tail: string): Promise<{ sizeBytes: number }> {
    await this.body.close();
    const headBytes = Buffer.from(head);
    const tailBytes = Buffer.from(tail);
    const bodyPath = this.bodyPath;
    const size = headBytes.length + (await stat(bodyPath)).size + tailBytes.length;
    async function* parts(): AsyncGenerator<Buffer> {
      yield headBytes;
      for await (const chunk of createReadStream(bodyPath)) yield chunk as Buffer;
      yield tailBytes;
    }
    await this.put(Readable.from(parts()), size);
    this.uploaded = true;
    await rm(this.spoolDir, { recursive: true, force: true });
    return { sizeBytes: size };
  }

  async abort(): Promise<void> {
    await this.body.discard();
    await rm(this.spoolDir, { recursive: true, force: true });
    if (this.uploaded) await this.remove().catch(() => undefined);
  }
}

export function s3SnapshotStore(options: S3StoreOptions): SnapshotStore {
  let connecting: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  const connect = () => (connecting ??= s3Sdk().then((sdk) => ({ sdk, client: s3Client(sdk, options.endpoint) })));
  const Bucket = options.bucket;
  const keyOf = (id: string) => `${options.prefix}${id}.json`;

  return {
    async createWriter(id) {
      if (!isSnapshotId(id)) throw new Error(`not a snapshot id: ${id}`);
      const { sdk, client } = await connect();
      const spoolDir = await mkdtemp(path.join(os.tmpdir(), 'snapshot-upload-'));
      const body = await open(path.join(spoolDir, 'body'), 'wx');
      return new S3ArtifactWriter(
        async (stream, length) => {
          await client.send(
            new sdk.PutObjectCommand({ Bucket, Key: keyOf(id), Body: stream, ContentLength: length, ContentType: 'application/json' }),
          );
        },
        async () => {
          await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: keyOf(id) }));
        },
        spoolDir,
        body,
      );
    },

    async list() {
      const { sdk, client } = await connect();
      const found: StoredArtifact[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix: options.prefix, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(options.prefix.length) ?? '';
          const id = name.endsWith('.json') ? name.slice(0, -5) : '';
          if (isSnapshotId(id)) found.push({ id, sizeBytes: object.Size ?? 0 });
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return found;
    },

    async open(id) {
      if (!isSnapshotId(id)) return null;
      const { sdk, client } = await connect();
      let size: number;
      let etag: string | undefined;
      try {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: keyOf(id) }));
        size = head.ContentLength ?? 0;
        etag = head.ETag;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
      const source: ByteSource = {
        size,
        async read(position, length) {
          const end = Math.min(size, position + length) - 1;
          if (end < position) return new Uint8Array(0);
          // IfMatch: an object replaced between two reads fails the read instead of mixing versions
          const got = await client.send(
            new sdk.GetObjectCommand({ Bucket, Key: keyOf(id), Range: `bytes=${position}-${end}`, IfMatch: etag }),
          );
          return got.Body ? await got.Body.transformToByteArray() : new Uint8Array(0);
        },
        async close() {},
      };
      return source;
    },

    async downloadUrl(id, fileName) {
      if (!isSnapshotId(id)) return null;
      const [{ sdk, client }, { getSignedUrl }] = await Promise.all([connect(), import('@aws-sdk/s3-request-presigner')]);
      const command = new sdk.GetObjectCommand({
        Bucket,
        Key: keyOf(id),
        ResponseContentDisposition: `attachment; filename="${fileName}"`,
        ResponseContentType: 'application/json; charset=utf-8',
      });
      return getSignedUrl(client, command, { expiresIn: options.downloadUrlSeconds ?? 300 });
    },
  };
}
