import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3SnapshotStore } from '../../infra/snapshots/s3-store';
import { startFakeS3, type FakeS3 } from '../support/fake-s3';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * SNAPSHOT_BUCKET: artifacts in an S3 bucket (here the in-process fake of test/support/fake-s3.ts),
 * so that what one Lambda instance writes, another lists, downloads and restores. Each "instance" is
 * an app context with its own DATA_DIR, as each Lambda instance has its own /tmp.
 */
let s3: FakeS3;
const s3Env = () => ({
  SNAPSHOT_BUCKET: s3.bucket,
  SNAPSHOT_PREFIX: 'team-a/snapshots/',
  S3_ENDPOINT: s3.endpoint,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test-key',
  AWS_SECRET_ACCESS_KEY: 'test-secret',
});
const savedEnv = { ...process.env };

beforeAll(async () => {
  // two objects per list page, so that listing has to follow continuation tokens
  s3 = await startFakeS3({ maxKeys: 2 });
});
afterAll(async () => {
  for (const key of Object.keys(s3Env())) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  await s3?.close();
});

describe('snapshots in an S3 bucket', () => {
  // Two apps on two databases sharing one bucket, started inside the tests: useTestApp gives a file one app.
  let created: string[] = [];
  let instanceA: TestApp | undefined;
  let instanceB: TestApp | undefined;
  afterAll(async () => {
    await instanceA?.close();
    await instanceB?.close();
  });

  it('are written by one instance as objects under SNAPSHOT_PREFIX, nothing in its DATA_DIR', async () => {
    instanceA = await startTestApp({ env: s3Env() });
    await instanceA.call('POST', '/api/projects', { body: { name: 'made on instance A' } });
    for (const name of ['first', 'second', 'third']) {
      const res = await instanceA.call('POST', '/api/snapshots', { body: { name } });
      expect(res.status).toBe(201);
      created.push(res.body.snapshot_id);
    }
    expect([...s3.objects.keys()].sort()).toEqual(created.map((id) => `team-a/snapshots/${id}.json`).sort());
    expect(await readdir(instanceA.ctx.config.snapshotDir).catch(() => [])).toEqual([]);
    // the upload spool is gone once the object exists
    expect((await readdir(os.tmpdir())).filter((f) => f.startsWith('snapshot-upload-'))).toEqual([]);
    await instanceA.close();
    instanceA = undefined;
  });

  it('are listed, downloaded and restored by another instance with an empty DATA_DIR', async () => {
    instanceB = await startTestApp({ env: s3Env() });
    const list = await instanceB.call('GET', '/api/snapshots');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(3);
    expect(list.body.snapshots.map((s: { snapshot_id: string }) => s.snapshot_id).sort()).toEqual([...created].sort());
    const listed = list.body.snapshots.find((s: { name: string }) => s.name === 'second');
    expect(listed.size_bytes).toBe(s3.objects.get(`team-a/snapshots/${listed.snapshot_id}.json`)!.length);

    const download = await instanceB.http('GET', `/api/snapshots/${listed.snapshot_id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers['content-disposition']).toBe('attachment; filename="second.json"');
    expect(download.text).toBe(s3.objects.get(`team-a/snapshots/${listed.snapshot_id}.json`)!.toString('utf8'));

    const restored = await instanceB.call('POST', '/api/restore/apply', {
      body: { snapshot_id: listed.snapshot_id, mode: 'replace', restoreId: randomUUID() },
    });
    expect(restored.body).not.toHaveProperty('error');
    expect(restored.status).toBe(200);
    const { rows } = await instanceB.db.query<{ name: string }>('SELECT name FROM projects');
    expect(rows.map((r) => r.name)).toEqual(['made on instance A']);
  });

  it('answer a pre-signed URL redirect on ?redirect=1, naming the file, and the URL serves the artifact', async () => {
    const id = created[0]!;
    const res = await instanceB!.call('GET', `/api/snapshots/${id}/download?redirect=1`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location!);
    expect(location.origin).toBe(s3.endpoint);
    expect(location.pathname).toBe(`/${s3.bucket}/team-a/snapshots/${id}.json`);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
    const fetched = await fetch(location);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-disposition')).toBe('attachment; filename="first.json"');
    expect(await fetched.text()).toBe(s3.objects.get(`team-a/snapshots/${id}.json`)!.toString('utf8'));
  });

  it('refuse a malformed redirect flag and answer 404 for an unknown or malformed id, never a 500', async () => {
    const bad = await instanceB!.call('GET', `/api/snapshots/${created[0]}/download?redirect=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/redirect must be 0 or 1/);
    const unknown = await instanceB!.call('GET', '/api/snapshots/00000000-0000-4000-8000-000000000000/download?redirect=1');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('snapshot_not_found');
    const malformed = await instanceB!.call('GET', '/api/snapshots/..%2F..%2Fetc/download');
    expect(malformed.status).toBe(404);
  });

  it('leave out objects that are not artifacts of this prefix', async () => {
    const store = s3SnapshotStore({ bucket: s3.bucket, prefix: 'team-a/snapshots/', endpoint: s3.endpoint });
    const writer = await store.createWriter('11111111-1111-4111-8111-111111111111');
    await writer.write('"tables":{}');
    await writer.commit('{"manifest":{"not":"valid"},', '}');
    const list = await instanceB!.call('GET', '/api/snapshots');
    expect(list.body.count).toBe(3);
    const other = s3SnapshotStore({ bucket: s3.bucket, prefix: 'team-b/', endpoint: s3.endpoint });
    expect(await other.list()).toEqual([]);
  });
});

describe('the S3 artifact store', () => {
  const store = () => s3SnapshotStore({ bucket: s3.bucket, prefix: 'unit/', endpoint: s3.endpoint });
  const id = '22222222-2222-4222-8222-222222222222';

  it('makes nothing visible before commit and nothing remains after abort', async () => {
    Object.assign(process.env, s3Env());
    const writer = await store().createWriter(id);
    await writer.write('x'.repeat(3 << 20)); // beyond one spool flush
    expect(await store().open(id)).toBeNull();
    await writer.abort();
    expect(await store().list()).toEqual([]);
    expect(s3.objects.has(`unit/${id}.json`)).toBe(false);
  });

  it('removes an uploaded object when the writer is aborted after commit', async () => {
    const writer = await store().createWriter(id);
    await writer.write('[1,2,3]');
    const { sizeBytes } = await writer.commit('{"a":', '}');
    expect(sizeBytes).toBe('{"a":[1,2,3]}'.length);
    expect(s3.objects.get(`unit/${id}.json`)!.toString()).toBe('{"a":[1,2,3]}');
    await writer.abort();
    expect(s3.objects.has(`unit/${id}.json`)).toBe(false);
  });

  it('reads any byte range of an object as the file store would', async () => {
    const writer = await store().createWriter(id);
    const body = Array.from({ length: 5000 }, (_, i) => String(i % 10)).join('');
    await writer.write(body);
    await writer.commit('[', ']');
    const source = (await store().open(id))!;
    const whole = `[${body}]`;
    expect(source.size).toBe(whole.length);
    for (const [position, length] of [
      [0, 1],
      [1, 10],
      [4990, 100],
      [whole.length - 1, 5],
      [whole.length, 3],
    ] as const) {
      expect(Buffer.from(await source.read(position, length)).toString(), `${position}+${length}`).toBe(
        whole.slice(position, position + length),
      );
    }
    await source.close();
  });

  it('refuses ids that are not snapshot ids before any request', async () => {
    const before = s3.requests.length;
    expect(await store().open('../other/key')).toBeNull();
    await expect(store().createWriter('not-an-id')).rejects.toThrow(/not a snapshot id/);
    expect(s3.requests.length).toBe(before);
  });
});

describe('choosing the store', () => {
  it('keeps the directory store when SNAPSHOT_BUCKET is unset, and refuses a malformed bucket, prefix or endpoint', async () => {
    const { parseConfig } = await import('../../infra/config');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'store-choice-'));
    expect(parseConfig({ DATA_DIR: dir }).snapshotBucket).toBeUndefined();
    expect(() => parseConfig({ SNAPSHOT_BUCKET: 'Not_A_Bucket' })).toThrow(/SNAPSHOT_BUCKET must be an S3 bucket name/);
    expect(() => parseConfig({ SNAPSHOT_BUCKET: 'ok-bucket', SNAPSHOT_PREFIX: 'no-slash' })).toThrow(/SNAPSHOT_PREFIX/);
    expect(() => parseConfig({ SNAPSHOT_BUCKET: 'ok-bucket', S3_ENDPOINT: 'not a url' })).toThrow(/S3_ENDPOINT must be a URL/);
    await rm(dir, { recursive: true, force: true });
  });
});
