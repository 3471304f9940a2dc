import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { foldAuditSearch } from '../../core/audit/list-audit';
import type { Storage } from '../../core/ports';
import { snapshotTables } from '../../core/snapshots/tables';
import { useTestApp } from '../support/use-app';
import { artifactTables, liveTables, seedEveryTable } from './snapshots-fixtures';

const app = useTestApp();
beforeAll(async () => {
  await seedEveryTable(app.db, 12, 'base');
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Artifact = { manifest: any; tables: Record<string, any[]>; settings: Record<string, unknown> };

async function snapshot(name: string): Promise<{ id: string; artifact: Artifact; text: string }> {
  const res = await app.call('POST', '/api/snapshots', { body: { name } });
  expect(res.status).toBe(201);
  const text = await readFile(path.join(app.ctx.config.snapshotDir, `${res.body.snapshot_id}.json`), 'utf8');
  return { id: res.body.snapshot_id, artifact: JSON.parse(text), text };
}

/** Live tables with the restore's own audit trail left out (it is written after the restore, by design). */
async function liveWithoutRestoreAudit() {
  const live = await liveTables(app.db);
  live.audit_log = live.audit_log!.filter((r) => !JSON.parse(r).entity_type.startsWith('restore'));
  return live;
}

/** Changes the database in every way: rows added, changed (before and after the snapshot time), removed. */
async function changeEverything(createdAt: string, tag: string) {
  const before = new Date(Date.parse(createdAt) - 3_600_000).toISOString();
  for (const t of snapshotTables) {
    const pk = t.primaryKey[0]!;
    // an update stamped before the snapshot time: "updated"
    await app.db.query(
      `UPDATE ${t.name} SET updated_at = $1 WHERE ${pk} = (SELECT ${pk} FROM ${t.name} ORDER BY ${t.primaryKey.join(', ')} LIMIT 1)`,
      [before],
    );
  }
  // a stamp of its own: were it the one above and this the row stamped there, the touch trigger would
  // see an unchanged updated_at and stamp now(), turning "updated" into "conflict" (1 run in 12)
  const editedAt = new Date(Date.parse(before) - 60_000).toISOString();
  await app.db.query(`UPDATE tasks SET title = title || ' (edited)', updated_at = $1 WHERE title = 't base 2'`, [editedAt]);
  await app.db.query(
    `UPDATE projects SET name = name || ' (renamed later)', updated_at = now() + interval '1 hour' WHERE id = (SELECT id FROM projects ORDER BY id LIMIT 1 OFFSET 2)`,
  );
  await app.db.query(`DELETE FROM workflow_artifacts WHERE id = (SELECT id FROM workflow_artifacts ORDER BY id LIMIT 1)`);
  await app.db.query(`DELETE FROM tasks WHERE title = 't base 12'`);
  await app.db.query(`DELETE FROM department_daily_metrics WHERE day = '2026-01-03' AND department_id = 'base-dept-1'`);
  await app.db.query(`UPDATE workspaces SET settings = '{"dense": false}' WHERE slug = 'base-ws-2'`);
  await seedEveryTable(app.db, 3, tag);
}

async function withoutDatabase<T>(work: () => Promise<T>): Promise<T> {
  const saved = app.ctx.deps.storage;
  app.ctx.deps.storage = {
    mode: 'fallback',
    fallback: { savedAt: null, projects: [], tasks: [] },
    label: 'test',
    reason: 'switched off',
  } satisfies Storage;
  try {
    return await work();
  } finally {
    app.ctx.deps.storage = saved;
  }
}

/** The audit search's derived tables (migration 1020) hold each live audit row once, indexed with its current text or queued, and nothing else. */
async function expectAuditSearchOfLiveRows() {
  const { rows } = await app.db.query<{ misplaced: number; orphans: number }>(
    `SELECT (SELECT count(*)::int FROM audit_log a
               LEFT JOIN audit_search s ON s.audit_id = a.id LEFT JOIN audit_search_pending p ON p.audit_id = a.id
              WHERE (s.audit_id IS NULL) = (p.audit_id IS NULL)
                 OR s.search_text <> audit_search_text(a.actor, a.action, a.entity_type, a.old_value, a.new_value)) AS misplaced,
            (SELECT count(*)::int FROM (SELECT audit_id FROM audit_search UNION ALL SELECT audit_id FROM audit_search_pending) d
              WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.id = d.audit_id)) AS orphans`,
  );
  expect(rows[0]).toEqual({ misplaced: 0, orphans: 0 });
}

describe('restore round trip', () => {
  it('previews the exact difference, then replace returns every table to the snapshot state', async () => {
    const snap = await snapshot('round trip');
    await changeEverything(snap.artifact.manifest.created_at, 'later');
    const before = await liveTables(app.db);

    const preview = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: snap.id } });
    expect(preview.status).toBe(200);
    expect(await liveTables(app.db)).toEqual(before); // nothing written
    expect(preview.body).toMatchObject({ schema_compat: 'ok', snapshot_id: snap.id, created_at: snap.artifact.manifest.created_at });
    const tasks = preview.body.tables.tasks;
    expect(tasks.added).toBe(1);
    expect(tasks.updated).toBeGreaterThanOrEqual(1);
    expect(tasks.absent).toBe(3);
    expect(preview.body.tables.projects.conflicts).toBe(1);
    expect(preview.body.tables.projects.conflict_pks).toHaveLength(1);
    expect(preview.body.tables.workflow_artifacts.added).toBe(1);
    expect(preview.body.tables.department_daily_metrics.added_pks).toEqual([{ department_id: 'base-dept-1', day: '2026-01-03' }]);
    expect(preview.body.tables.workspaces.conflicts).toBe(1); // changed by a writer after the snapshot
    const totalRows = Object.values(snap.artifact.manifest.counts as Record<string, number>).reduce((a, b) => a + b, 0);
    const t = preview.body.totals;
    expect(t.added + t.updated + t.conflicts + t.unchanged).toBe(totalRows);

    // the audit rows so far indexed for search, as a dispatcher pass leaves them: the restore deletes and rewrites them
    await foldAuditSearch(app.db);
    const restoreId = randomUUID();
    const applied = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, mode: 'replace', restoreId } });
    expect(applied.status).toBe(200);
    await expectAuditSearchOfLiveRows();
    // the restore folded what it wrote: no search has to compute the text of a restored log
    expect((await app.db.query('SELECT 1 FROM audit_search_pending')).rows).toEqual([]);
    expect(applied.body).toMatchObject({ restoreId, duplicate: false, resumed: false, summary: { mode: 'replace', resumed: false } });
    expect(applied.body.summary.totals.upserted).toBe(t.added + t.updated + t.conflicts);
    expect(applied.body.summary.tables.tasks.deleted).toBeGreaterThanOrEqual(3);
    expect(await liveWithoutRestoreAudit()).toEqual(artifactTables(snap.artifact));

    const again = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: snap.id } });
    expect(again.body.totals).toMatchObject({ added: 0, updated: 0, conflicts: 0 });

    const events = await app.db.query<{ payload: { restoreId: string; table: string; doneRows: number; totalRows: number } }>(
      `SELECT payload FROM event_outbox WHERE name = 'restore-progress' AND channel = 'stream' AND payload->>'restoreId' = $1 ORDER BY id`,
      [restoreId],
    );
    expect(events.rows.map((e) => e.payload.table)).toEqual(snapshotTables.map((x) => x.name));
    expect(events.rows.at(-1)!.payload).toMatchObject({ doneRows: totalRows, totalRows });
    const audit = await app.db.query(`SELECT action FROM audit_log WHERE entity_type = 'restore' AND entity_id = $1`, [restoreId]);
    expect(audit.rows).toEqual([{ action: 'restore.applied' }]);
  });

  it('merge brings back every snapshot row as it was and deletes nothing', async () => {
    const snap = await snapshot('merge base');
    await changeEverything(snap.artifact.manifest.created_at, 'more');
    const later = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE title LIKE 't more %'`);
    await foldAuditSearch(app.db);
    const res = await app.call('POST', '/api/restore/apply', { body: { artifact: snap.artifact, restoreId: randomUUID() } });
    expect(res.status).toBe(200);
    await expectAuditSearchOfLiveRows();
    expect(res.body.summary.mode).toBe('merge');
    expect(res.body.summary.totals.deleted).toBe(0);
    const live = await liveTables(app.db);
    for (const [name, rows] of Object.entries(artifactTables(snap.artifact))) {
      const present = new Set(live[name]);
      for (const row of rows) expect(present.has(row), `${name} ${row}`).toBe(true);
    }
    const after = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE title LIKE 't more %'`);
    expect(after.rows[0]!.n).toBe(later.rows[0]!.n);
  });

  it('replays a completed restoreId with duplicate: true and runs nothing', async () => {
    const snap = await snapshot('replay');
    const restoreId = randomUUID();
    const first = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, restoreId } });
    const auditCount = await app.db.query(`SELECT count(*)::int AS n FROM audit_log`);
    const second = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, restoreId } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ restoreId, duplicate: true });
    expect(second.body.summary).toEqual(first.body.summary);
    expect((await app.db.query(`SELECT count(*)::int AS n FROM audit_log`)).rows).toEqual(auditCount.rows);
    const other = await snapshot('other');
    const reused = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: other.id, restoreId } });
    expect(reused.status).toBe(409);
    const otherMode = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, restoreId, mode: 'replace' } });
    expect(otherMode.status).toBe(409);
  });
});

describe('restore validation order', () => {
  let snap: { id: string; artifact: Artifact; text: string };
  beforeAll(async () => {
    snap = await snapshot('validation');
  });

  async function refusedWithoutWrites(body: unknown, status: number, error: string) {
    const before = await liveTables(app.db);
    const checkpoints = await app.db.query('SELECT count(*)::int AS n FROM restore_checkpoints');
    for (const route of ['/api/restore/preview', '/api/restore/apply']) {
      const res = await app.call('POST', route, {
        body: route.endsWith('apply') ? { ...(body as object), restoreId: randomUUID() } : body,
      });
      expect(res.status, `${route} ${error}`).toBe(status);
      expect(res.body.error).toBe(error);
    }
    expect(await liveTables(app.db)).toEqual(before);
    expect((await app.db.query('SELECT count(*)::int AS n FROM restore_checkpoints')).rows).toEqual(checkpoints.rows);
  }

  const clone = (): Artifact => JSON.parse(snap.text);

  it('refuses a broken manifest with 400 invalid_manifest', async () => {
    const noManifest = clone();
    delete (noManifest as Partial<Artifact>).manifest;
    await refusedWithoutWrites({ artifact: noManifest }, 400, 'invalid_manifest');
    const badVersion = clone();
    badVersion.manifest.artifact_version = 2;
    await refusedWithoutWrites({ artifact: badVersion }, 400, 'invalid_manifest');
    const unknownTable = clone();
    unknownTable.tables.entity_snapshots = [];
    await refusedWithoutWrites({ artifact: unknownTable }, 400, 'invalid_manifest');
    await refusedWithoutWrites({ artifact: { ...clone(), tables: [] } }, 400, 'invalid_manifest');
    await refusedWithoutWrites({ artifact: 'text' }, 400, 'invalid_manifest');
  });

  it('refuses a tampered artifact with 400 artifact_corrupt before any diff', async () => {
    const tampered = clone();
    tampered.tables.tasks![0].title = 'tampered';
    await refusedWithoutWrites({ artifact: tampered }, 400, 'artifact_corrupt');
    const miscounted = clone();
    miscounted.manifest.counts.tasks += 1;
    await refusedWithoutWrites({ artifact: miscounted }, 400, 'artifact_corrupt');
  });

  it('refuses an artifact naming migrations this database lacks with 409 schema_too_new and missing[]', async () => {
    const tooNew = clone();
    tooNew.manifest.schema_version.migrations_applied.push('9999_from_the_future');
    await refusedWithoutWrites({ artifact: tooNew }, 409, 'schema_too_new');
    const res = await app.call('POST', '/api/restore/preview', { body: { artifact: tooNew } });
    expect(res.body.missing).toEqual(['9999_from_the_future']);
  });

  it('warns target_newer when this database has more migrations than the artifact', async () => {
    const older = clone();
    older.manifest.schema_version.migrations_applied = older.manifest.schema_version.migrations_applied.slice(0, 1);
    const res = await app.call('POST', '/api/restore/preview', { body: { artifact: older } });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toContain('target_newer');
  });

  it('answers 503 without a database only after the artifact checks, and writes nothing', async () => {
    const tampered = clone();
    tampered.tables.tasks![0].title = 'x';
    await withoutDatabase(async () => {
      const corrupt = await app.call('POST', '/api/restore/preview', { body: { artifact: tampered } });
      expect(corrupt.status).toBe(400);
      for (const route of ['/api/restore/preview', '/api/restore/apply']) {
        const res = await app.call('POST', route, {
          body: { snapshot_id: snap.id, restoreId: route.endsWith('apply') ? randomUUID() : undefined },
        });
        expect(res.status, route).toBe(503);
        expect(res.body).toMatchObject({ available: false, reason: 'no_database' });
      }
    });
  });

  it('answers 400 for malformed JSON and bad envelopes, 404 for an unknown snapshot_id', async () => {
    expect((await app.call('POST', '/api/restore/preview', { raw: '{"artifact": {' })).status).toBe(400);
    expect((await app.call('POST', '/api/restore/preview', { raw: '' })).status).toBe(400);
    expect((await app.call('POST', '/api/restore/preview', { body: {} })).status).toBe(400);
    expect((await app.call('POST', '/api/restore/preview', { body: { snapshot_id: snap.id, artifact: clone() } })).status).toBe(400);
    expect((await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id } })).status).toBe(400);
    expect(
      (await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, restoreId: randomUUID(), mode: 'wipe' } })).status,
    ).toBe(400);
    const unknown = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: randomUUID() } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('snapshot_not_found');
    expect((await app.call('POST', '/api/restore/preview', { body: { snapshot_id: '../../etc/passwd' } })).status).toBe(404);
  });

  it('answers random bodies with a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), fc.boolean(), async (value, apply) => {
        const res = await app.call('POST', apply ? '/api/restore/apply' : '/api/restore/preview', { body: value });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});

describe('restore settings', () => {
  it('applies the settings section, skipping invalid values, and drops a section holding a password key', async () => {
    await app.call('PATCH', '/api/settings', { body: { theme: 'light', CHAT_RATE_LIMIT: 5 } });
    const snap = await snapshot('settings');
    await app.call('PATCH', '/api/settings', { body: { theme: 'dark', CHAT_RATE_LIMIT: 9 } });
    const res = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, restoreId: randomUUID() } });
    expect(res.body.summary.settings).toMatchObject({ dropped_section: false });
    expect(res.body.summary.settings.applied).toEqual(expect.arrayContaining(['theme', 'CHAT_RATE_LIMIT']));
    expect((await app.call('GET', '/api/settings')).body.settings).toMatchObject({ theme: 'light', CHAT_RATE_LIMIT: 5 });

    // a hand-made artifact whose settings hold a password key: recompute its hash so only the rule applies
    const { canonicalJson } = await import('../../core/snapshots/canonical-json');
    const { createHash } = await import('node:crypto');
    const withPassword = JSON.parse(snap.text) as Artifact;
    withPassword.settings = { ...withPassword.settings, theme: 'system', POSTGRES_PASSWORD: 'MARKER-restore-pg-password' };
    withPassword.manifest.content_hash = createHash('sha256')
      .update(canonicalJson({ tables: withPassword.tables, settings: withPassword.settings }))
      .digest('hex');
    const preview = await app.call('POST', '/api/restore/preview', { body: { artifact: withPassword } });
    expect(preview.body.warnings).toContain('settings_section_dropped');
    expect(preview.body.settings).toEqual({ keys: [], dropped: true });
    const applied = await app.call('POST', '/api/restore/apply', { body: { artifact: withPassword, restoreId: randomUUID() } });
    expect(applied.body.summary.settings).toMatchObject({ dropped_section: true, applied: [] });
    expect(applied.body.warnings).toContain('settings_section_dropped');
    expect((await app.call('GET', '/api/settings')).body.settings.theme).toBe('light');
    expect(JSON.stringify([preview.body, applied.body])).not.toContain('MARKER-');
    expect((await app.db.query(`SELECT count(*)::int AS n FROM settings WHERE key = 'POSTGRES_PASSWORD'`)).rows[0]).toEqual({ n: 0 });
  });
});

describe('restore write order', () => {
  it('puts every table a captured table references before it', async () => {
    const { rows } = await app.db.query<{ child: string; parent: string }>(
      `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent FROM pg_constraint c WHERE c.contype = 'f'`,
    );
    const order = snapshotTables.map((t) => t.name);
    for (const { child, parent } of rows) {
      if (!order.includes(child) || child === parent) continue;
      expect(order.includes(parent), `${child} references ${parent}, which snapshots do not carry`).toBe(true);
      expect(order.indexOf(parent), `${parent} before ${child}`).toBeLessThan(order.indexOf(child));
    }
  });
});

describe('unique keys besides the primary key', () => {
  it('lists every unique index of the captured tables, on tables keyed by one column', async () => {
    const { rows } = await app.db.query<{ table: string; n: number }>(
      `SELECT c.relname AS table, count(*)::int AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        WHERE i.indisunique AND NOT i.indisprimary AND c.relnamespace = 'public'::regnamespace GROUP BY c.relname`,
    );
    const indexed = Object.fromEntries(rows.filter((r) => snapshotTables.some((t) => t.name === r.table)).map((r) => [r.table, r.n]));
    const listed = Object.fromEntries(snapshotTables.filter((t) => t.uniqueKeys?.length).map((t) => [t.name, t.uniqueKeys!.length]));
    expect(listed).toEqual(indexed);
    for (const t of snapshotTables.filter((x) => x.uniqueKeys?.length)) expect(t.primaryKey, t.name).toHaveLength(1);
  });

  it('refuses a merge that a live row would block before any write, warns in preview, and replace restores it', async () => {
    const snap = await snapshot('unique clash');
    const { rows } = await app.db.query<{ id: string; scope: string; scope_id: string; period: string }>(
      `SELECT id, scope, scope_id, period FROM budgets WHERE active ORDER BY id LIMIT 1`,
    );
    const victim = rows[0]!;
    // the operator deleted a budget and made another for the same scope and period
    await app.db.query('DELETE FROM budgets WHERE id = $1', [victim.id]);
    const { rows: made } = await app.db.query<{ id: string }>(
      `INSERT INTO budgets (id, name, scope, scope_id, period, cap_usd, action_on_exceed) VALUES (gen_random_uuid(), 'replacement', $1, $2, $3, 5, 'warn') RETURNING id`,
      [victim.scope, victim.scope_id, victim.period],
    );

    const preview = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: snap.id } });
    expect(preview.status).toBe(200);
    expect(preview.body.warnings).toContain('unique_clash');
    const detail = preview.body.warning_details.find((w: { code: string }) => w.code === 'unique_clash');
    expect(detail.message).toContain(`1 row(s) of budgets (one active budget per scope, scope_id and period, e.g. ${victim.id})`);

    const before = await liveTables(app.db);
    const checkpoints = await app.db.query('SELECT count(*)::int AS n FROM restore_checkpoints');
    const merge = await app.call('POST', '/api/restore/apply', { body: { snapshot_id: snap.id, restoreId: randomUUID() } });
    expect(merge.status).toBe(409);
    expect(merge.body).toMatchObject({ error: 'unique_clash', clashes: [{ table: 'budgets', rows: 1, sample: [victim.id] }] });
    expect(merge.body.message).toMatch(/replace mode/);
    expect(await liveTables(app.db)).toEqual(before);
    expect((await app.db.query('SELECT count(*)::int AS n FROM restore_checkpoints')).rows).toEqual(checkpoints.rows);

    const replace = await app.call('POST', '/api/restore/apply', {
      body: { snapshot_id: snap.id, restoreId: randomUUID(), mode: 'replace' },
    });
    expect(replace.status).toBe(200);
    const ids = (await app.db.query<{ id: string }>('SELECT id FROM budgets')).rows.map((r) => r.id);
    expect(ids).toContain(victim.id);
    expect(ids).not.toContain(made[0]!.id);
    // with the clash gone, preview no longer warns
    const clean = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: snap.id } });
    expect(clean.body.warnings).not.toContain('unique_clash');
  });
});
