import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../core/snapshots/canonical-json';
import { snapshotTables } from '../../core/snapshots/tables';
import type { Storage } from '../../core/ports';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let snapshotDir: string;
beforeAll(async () => {
  snapshotDir = app.ctx.config.snapshotDir;
  const project = await app.call('POST', '/api/projects', { body: { name: 'Captured', metadata: { owner: 'ops' } } });
  await app.db.query(`INSERT INTO tasks (id, project_id, title) SELECT gen_random_uuid(), $1, 'task ' || g FROM generate_series(1, 25) g`, [
    project.body.id,
  ]);
  await app.db.query(`INSERT INTO departments (id, name) VALUES ('ops', 'Operations')`);
  await app.db.query(`INSERT INTO department_daily_metrics (department_id, day, metrics) VALUES ('ops', '2026-10-31', '{"runs": 3}')`);
});

async function tableCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of snapshotTables) {
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.name}`);
    counts[t.name] = rows[0]!.n;
  }
  return counts;
}

async function withoutDatabase<T>(work: () => Promise<T>): Promise<T> {
  const saved = app.ctx.deps.storage;
  app.ctx.deps.storage = {
    mode: 'fallback',
    fallback: { savedAt: null, projects: [], tasks: [] },
    label: 'test',
    reason: 'database switched off by the test',
  } satisfies Storage;
  try {
    return await work();
  } finally {
    app.ctx.deps.storage = saved;
  }
}

describe('snapshot create', () => {
  it('writes one canonical artifact with every table of tiers A to D, exact counts and a verifiable content_hash', async () => {
    const before = await tableCounts();
    const res = await app.call('POST', '/api/snapshots', { body: { name: 'before upgrade' } });
    expect(res.status).toBe(201);
    const { snapshot_id: id, manifest } = res.body;
    expect(manifest).toMatchObject({
      artifact_version: 1,
      snapshot_id: id,
      name: 'before upgrade',
      actor: 'dashboard-operator',
      generator: 'fleet-task-server@0.1.0',
    });
    expect(manifest.counts).toEqual(before);
    const { rows: migrations } = await app.db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(manifest.schema_version.migrations_applied).toEqual(migrations.map((m) => m.name));

    const text = await readFile(path.join(snapshotDir, `${id}.json`), 'utf8');
    const artifact = JSON.parse(text);
    expect(text).toBe(canonicalJson(artifact));
    expect(Object.keys(artifact.tables).sort()).toEqual(snapshotTables.map((t) => t.name).sort());
    expect(artifact.tables).not.toHaveProperty('entity_snapshots');
    expect(artifact.tables).not.toHaveProperty('schema_migrations');
    for (const t of snapshotTables) expect(artifact.tables[t.name]).toHaveLength(before[t.name]!);
    const hash = createHash('sha256')
      .update(canonicalJson({ tables: artifact.tables, settings: artifact.settings }))
      .digest('hex');
    expect(manifest.content_hash).toBe(hash);
    expect(artifact.manifest).toEqual(manifest);
    // rows carry microsecond timestamps and composite keys unchanged
    expect(artifact.tables.department_daily_metrics[0]).toMatchObject({ department_id: 'ops', day: '2026-10-31', metrics: { runs: 3 } });
    // the audit search text is derived (migration 1020): neither its tables nor a column of it travel
    expect(artifact.tables).not.toHaveProperty('audit_search');
    expect(artifact.tables).not.toHaveProperty('audit_search_pending');
    expect(Object.keys(artifact.tables.audit_log[0]!).sort()).toEqual([
      'action',
      'actor',
      'entity_id',
      'entity_type',
      'id',
      'metadata',
      'new_value',
      'old_value',
      'project_id',
      'task_id',
      'timestamp',
      'updated_at',
    ]);

    const audit = await app.db.query(`SELECT action, actor FROM audit_log WHERE entity_type = 'snapshot' AND entity_id = $1`, [id]);
    expect(audit.rows).toEqual([{ action: 'created', actor: 'dashboard-operator' }]);
    expect((await readdir(snapshotDir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('names a snapshot snapshot-YYYYMMDD-HHmm by default', async () => {
    const res = await app.call('POST', '/api/snapshots');
    expect(res.status).toBe(201);
    expect(res.body.manifest.name).toMatch(/^snapshot-\d{8}-\d{4}$/);
  });

  it('refuses a name over 120 characters, an empty name and unknown fields with 400 and writes nothing', async () => {
    const files = (await readdir(snapshotDir)).length;
    for (const body of [{ name: 'x'.repeat(121) }, { name: '  ' }, { name: 5 }, { title: 'x' }, [1]]) {
      const res = await app.call('POST', '/api/snapshots', { body });
      expect(res.status).toBe(400);
    }
    expect((await readdir(snapshotDir)).length).toBe(files);
  });

  it('answers 503 {available: false, reason: no_database} without a database and writes no file', async () => {
    const files = (await readdir(snapshotDir)).length;
    const res = await withoutDatabase(() => app.call('POST', '/api/snapshots', { body: { name: 'offline' } }));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ available: false, reason: 'no_database' });
    expect((await readdir(snapshotDir)).length).toBe(files);
  });
});

describe('snapshot list and download', () => {
  it('lists artifacts newest first with total_rows, on-disk size and content hash, skipping unreadable and foreign files', async () => {
    const older = await app.call('POST', '/api/snapshots', { body: { name: 'older' } });
    await app.db.query(`INSERT INTO workflows (id, name) VALUES (gen_random_uuid(), 'later')`);
    const later = new Date(Date.parse(older.body.manifest.created_at) + 60_000);
    const saved = app.ctx.deps.clock;
    app.ctx.deps.clock = movableClock(later);
    const newer = await app.call('POST', '/api/snapshots', { body: { name: 'newer' } });
    app.ctx.deps.clock = saved;

    await mkdir(snapshotDir, { recursive: true });
    await writeFile(path.join(snapshotDir, '0f0f0f0f-0000-4000-8000-000000000001.json'), '{"manifest": {"artifact_version": 1');
    await writeFile(path.join(snapshotDir, '0f0f0f0f-0000-4000-8000-000000000002.json'), '');
    await writeFile(path.join(snapshotDir, 'notes.json'), '{}');
    // a valid manifest copied under another id is not that snapshot
    const copied = await readFile(path.join(snapshotDir, `${older.body.snapshot_id}.json`));
    await writeFile(path.join(snapshotDir, '0f0f0f0f-0000-4000-8000-000000000003.json'), copied);

    const res = await app.call('GET', '/api/snapshots');
    expect(res.status).toBe(200);
    expect(res.body.available).toBe(true);
    expect(res.body.count).toBe(res.body.snapshots.length);
    const ids = res.body.snapshots.map((s: { snapshot_id: string }) => s.snapshot_id);
    expect(ids[0]).toBe(newer.body.snapshot_id);
    expect(ids).toContain(older.body.snapshot_id);
    expect(ids.some((id: string) => id.startsWith('0f0f0f0f'))).toBe(false);
    const entry = res.body.snapshots.find((s: { snapshot_id: string }) => s.snapshot_id === older.body.snapshot_id);
    const size = (await readFile(path.join(snapshotDir, `${older.body.snapshot_id}.json`))).length;
    expect(entry).toEqual({
      snapshot_id: older.body.snapshot_id,
      name: 'older',
      created_at: older.body.manifest.created_at,
      total_rows: Object.values(older.body.manifest.counts as Record<string, number>).reduce((a, b) => a + b, 0),
      size_bytes: size,
      generator: 'fleet-task-server@0.1.0',
      content_hash: older.body.manifest.content_hash,
    });
    const times = res.body.snapshots.map((s: { created_at: string }) => Date.parse(s.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('downloads the raw artifact as an attachment named after the snapshot', async () => {
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'nightly / ops' } });
    const res = await app.call('GET', `/api/snapshots/${created.body.snapshot_id}/download`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="nightly_ops.json"');
    expect(res.text).toBe(await readFile(path.join(snapshotDir, `${created.body.snapshot_id}.json`), 'utf8'));
  });

  it('answers 404 snapshot_not_found for unknown, malformed and path-escaping ids', async () => {
    for (const id of [
      '0a0a0a0a-0000-4000-8000-000000000000',
      'nope',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '0F0F0F0F-0000-4000-8000-000000000001',
      '0f0f0f0f-0000-4000-8000-000000000001',
    ]) {
      const res = await app.call('GET', `/api/snapshots/${id}/download`);
      expect(res.status, id).toBe(404);
      expect(res.body.error).toBe('snapshot_not_found');
    }
  });

  it('lists and downloads without a database', async () => {
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'for offline' } });
    await withoutDatabase(async () => {
      const list = await app.call('GET', '/api/snapshots');
      expect(list.status).toBe(200);
      expect(list.body.snapshots.map((s: { snapshot_id: string }) => s.snapshot_id)).toContain(created.body.snapshot_id);
      const download = await app.call('GET', `/api/snapshots/${created.body.snapshot_id}/download`);
      expect(download.status).toBe(200);
    });
  });
});
