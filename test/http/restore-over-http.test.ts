import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTED_BODY_MAX_BYTES } from '../../handlers/middleware/responses';
import { useTestApp } from '../support/use-app';

const LIMIT = 20_000;
const app = useTestApp({ env: { RESTORE_MAX_BYTES: String(LIMIT) } });

/** Sends a body in chunks without Content-Length, as a client streaming a large upload does. */
async function streamed(path: string, chunks: number, chunkSize: number): Promise<{ status: number; body: string }> {
  const base = new URL(await app.baseUrl());
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write('{"artifact": "');
    let sent = 0;
    const pump = () => {
      while (sent < chunks) {
        sent++;
        if (!req.write('x'.repeat(chunkSize))) return void req.once('drain', pump);
      }
      req.end('"}');
    };
    pump();
  });
}

describe('restore over HTTP', () => {
  it('refuses a body above RESTORE_MAX_BYTES with 413 payload_too_large before parsing, and writes nothing', async () => {
    const oversized = JSON.stringify({ artifact: { padding: 'x'.repeat(LIMIT) }, restoreId: randomUUID() });
    for (const route of ['/api/restore/preview', '/api/restore/apply']) {
      const res = await app.http('POST', route, { raw: oversized });
      expect(res.status, route).toBe(413);
      expect(res.body).toMatchObject({ error: 'payload_too_large', limit: LIMIT });
      const handlerLevel = await app.call('POST', route, { raw: oversized });
      expect(handlerLevel.status).toBe(413);
      expect(handlerLevel.body.error).toBe('payload_too_large');
    }
    const chunked = await streamed('/api/restore/preview', 40, 1000);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error).toBe('payload_too_large');
    expect((await app.db.query('SELECT count(*)::int AS n FROM restore_checkpoints')).rows[0]).toEqual({ n: 0 });
  });

  it('snapshots, downloads, previews and applies through the runner', async () => {
    await app.http('POST', '/api/projects', { body: { name: 'over http' } });
    const created = await app.http('POST', '/api/snapshots', { body: { name: 'http' } });
    expect(created.status).toBe(201);
    const download = await app.http('GET', `/api/snapshots/${created.body.snapshot_id}/download`);
    expect(download.status, download.text).toBe(200);
    expect(download.headers['content-disposition']).toBe('attachment; filename="http.json"');
    expect(download.body.manifest.snapshot_id).toBe(created.body.snapshot_id);
    await app.db.query('DELETE FROM projects');
    const preview = await app.http('POST', '/api/restore/preview', { raw: JSON.stringify({ artifact: download.body }) });
    expect(preview.status).toBe(200);
    expect(preview.body.tables.projects.added).toBe(1);
    const applied = await app.http('POST', '/api/restore/apply', {
      body: { snapshot_id: created.body.snapshot_id, restoreId: randomUUID() },
    });
    expect(applied.status).toBe(200);
    expect((await app.db.query('SELECT name FROM projects')).rows).toEqual([{ name: 'over http' }]);
    const list = await app.http('GET', '/api/snapshots');
    expect(list.body.count).toBe(1);
  });

  it('streams a multi-megabyte artifact byte for byte, with its Content-Length', async () => {
    // audit rows with 2 KB values: an artifact of several 1 MB read chunks
    await app.db.query(`INSERT INTO audit_log (actor, action, entity_type, entity_id, new_value)
      SELECT 'bulk', 'created', 'thing', 'bulk-' || g, jsonb_build_object('text', repeat(md5(g::text), 64)) FROM generate_series(1, 1800) g`);
    const created = await app.http('POST', '/api/snapshots', { body: { name: 'large' } });
    expect(created.status).toBe(201);
    const file = await readFile(path.join(app.ctx.config.snapshotDir, `${created.body.snapshot_id}.json`));
    expect(file.length).toBeGreaterThan(3 * 1024 * 1024);
    const base = new URL(await app.baseUrl());
    const received = await new Promise<{ status: number; length: string | undefined; bytes: Buffer }>((resolve, reject) => {
      http
        .get({ host: base.hostname, port: base.port, path: `/api/snapshots/${created.body.snapshot_id}/download` }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, length: res.headers['content-length'], bytes: Buffer.concat(parts) }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    expect(received.status).toBe(200);
    expect(received.length).toBe(String(file.length));
    const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(digest(received.bytes)).toBe(digest(file));
    // a client that hangs up after the first chunk leaves a server that still serves the whole file
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: base.hostname, port: base.port, path: `/api/snapshots/${created.body.snapshot_id}/download` }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
    });
    const again = await app.http('GET', `/api/snapshots/${created.body.snapshot_id}/download`);
    expect(again.status).toBe(200);
    expect(digest(Buffer.from(again.text))).toBe(digest(file));
    // the handler called directly (as Lambda does) collects the same bytes into its body
    const direct = await app.call('GET', `/api/snapshots/${created.body.snapshot_id}/download`);
    expect(direct.status).toBe(200);
    expect(digest(Buffer.from(direct.text))).toBe(digest(file));

    // beyond what a Lambda response carries, a direct call answers 413 while the runner still streams it all
    await app.db.query(`INSERT INTO audit_log (actor, action, entity_type, entity_id, new_value)
      SELECT 'bulk', 'created', 'thing', 'more-' || g, jsonb_build_object('text', repeat(md5(g::text), 64)) FROM generate_series(1, 1800) g`);
    const larger = await app.http('POST', '/api/snapshots', { body: { name: 'larger' } });
    const largerFile = await readFile(path.join(app.ctx.config.snapshotDir, `${larger.body.snapshot_id}.json`));
    expect(largerFile.length).toBeGreaterThan(COLLECTED_BODY_MAX_BYTES);
    const refused = await app.call('GET', `/api/snapshots/${larger.body.snapshot_id}/download`);
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: 'response_too_large', limit: COLLECTED_BODY_MAX_BYTES });
    expect(refused.body.error).toMatch(/local runner/);
    const streamedLarger = await app.http('GET', `/api/snapshots/${larger.body.snapshot_id}/download`);
    expect(streamedLarger.status).toBe(200);
    expect(digest(Buffer.from(streamedLarger.text))).toBe(digest(largerFile));
  });
});
