import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { settingsCatalog } from '../../core/settings/catalog';
import { snapshotTables } from '../../core/snapshots/tables';
import { logger } from '../../infra/logger';
import { useTestApp } from '../support/use-app';
import { seedEveryTable } from './snapshots-fixtures';

const app = useTestApp();
const planted: string[] = [];

beforeAll(async () => {
  await seedEveryTable(app.db, 4, 'sec');
  // a marker secret under secret-named keys in every JSON column of every captured table
  for (const t of snapshotTables) {
    const { rows } = await app.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND data_type = 'jsonb'`,
      [t.name],
    );
    for (const { column_name: column } of rows) {
      const marker = (n: number) => {
        const m = `MARKER-${t.name}-${column}-${n}`;
        planted.push(m);
        return m;
      };
      const value = {
        api_key: marker(1),
        nested: [{ db_password: marker(2), keyboard: 'visible' }],
        auth: { access_token: marker(3), 'Client-Secret': marker(4), credential: { any: marker(5) } },
      };
      await app.db.query(`UPDATE ${t.name} SET ${column} = $1`, [JSON.stringify(value)]);
    }
  }
  // and in every setting: password-type values, secret-keyed preference values, and a key the catalog does not know
  for (const s of settingsCatalog) {
    const m = `MARKER-setting-${s.key}`;
    planted.push(m);
    const value = s.type === 'password' ? m : { token: m };
    await app.db.query(`INSERT INTO settings (key, value, source, type) VALUES ($1, $2, $3, $4)`, [
      s.key,
      JSON.stringify(value),
      s.source,
      s.type,
    ]);
  }
  planted.push('MARKER-setting-unknown');
  await app.db.query(
    `INSERT INTO settings (key, value, source, type) VALUES ('LEGACY_RELAY_SECRET', '"MARKER-setting-unknown"', 'config', 'string')`,
  );
});

describe('secrets policy', () => {
  it('no planted marker appears in artifacts, listing, download, preview, apply, settings or log output', async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    logger().setLogLevel('DEBUG');
    const outputs: string[] = [];
    try {
      const created = await app.call('POST', '/api/snapshots', { body: { name: 'secrets' } });
      expect(created.status).toBe(201);
      outputs.push(created.text);
      outputs.push((await app.call('GET', '/api/snapshots')).text);
      outputs.push((await app.http('GET', `/api/snapshots/${created.body.snapshot_id}/download`)).text);
      outputs.push((await app.call('POST', '/api/restore/preview', { body: { snapshot_id: created.body.snapshot_id } })).text);
      const applied = await app.call('POST', '/api/restore/apply', {
        body: { snapshot_id: created.body.snapshot_id, restoreId: randomUUID(), mode: 'replace' },
      });
      expect(applied.status).toBe(200);
      outputs.push(applied.text);
      outputs.push((await app.http('GET', '/api/settings')).text);
      for (const file of await readdir(app.ctx.config.snapshotDir))
        outputs.push(await readFile(path.join(app.ctx.config.snapshotDir, file), 'utf8'));
      const restoreAudit = await app.db.query<{ v: string }>(
        `SELECT new_value::text AS v FROM audit_log WHERE entity_type IN ('restore', 'snapshot')`,
      );
      outputs.push(...restoreAudit.rows.map((r) => String(r.v)));
    } finally {
      logger().setLogLevel('SILENT' as never);
      spy.mockRestore();
    }
    const everything = [...outputs, ...logged].join('\n');
    expect(logged.length).toBeGreaterThan(0);
    expect(planted.length).toBeGreaterThan(100);
    for (const marker of planted) expect(everything.includes(marker), marker).toBe(false);
    expect(everything).not.toContain('MARKER-');

    const artifact = outputs.find((o) => o.startsWith('{"manifest"'))!;
    expect(artifact).toContain('"api_key":"[REDACTED]"');
    expect(artifact).toContain('"keyboard":"visible"');
    expect(artifact).not.toContain('POSTGRES_PASSWORD');
    expect(artifact).not.toContain('LEGACY_RELAY_SECRET');
  });

  it('a restore keeps the live secret where the artifact could only carry [REDACTED]', async () => {
    const { rows } = await app.db.query<{ v: string }>(`SELECT metadata->>'api_key' AS v FROM projects LIMIT 1`);
    expect(rows[0]!.v).toMatch(/^MARKER-projects-metadata-1$/);
  });
});
