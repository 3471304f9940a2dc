import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
const SECRET = 'sk-live-PLANTED-0xDEADBEEF';

async function tableDump() {
  const out: Record<string, unknown[]> = {};
  for (const table of ['projects', 'tasks', 'workflows', 'audit_log', 'settings']) {
    out[table] = (await app.db.query(`SELECT * FROM ${table} ORDER BY 1`)).rows;
  }
  return out;
}

describe('legacy export', () => {
  it('exports projects, tasks, workflows, at most 500 audit rows and operator settings, with no secret anywhere', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Exported', metadata: { db_password: SECRET, note: 'ok' } } }))
      .body;
    await app.call('POST', '/api/tasks', {
      body: { project_id: project.id, title: 'secretive', metadata: { nested: [{ access_token: SECRET }] } },
    });
    await app.db.query(
      `INSERT INTO settings (key, value, source, type) VALUES ('theme', '"dark"', 'config', 'string'),
         ('GATEWAY_TOKEN', $1, 'env', 'password'), ('POSTGRES_PASSWORD', $1, 'env', 'password')`,
      [JSON.stringify(SECRET)],
    );
    await app.db.query(
      `INSERT INTO audit_log (timestamp, actor, action, entity_type, new_value)
       SELECT now() - g * interval '1 second', 'bulk', 'updated', 'task', jsonb_build_object('api_key', $1::text) FROM generate_series(1, 600) g`,
      [SECRET],
    );
    const res = await app.call('GET', '/api/export');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 1, exportedAt: expect.any(String) });
    expect(res.body.projects).toHaveLength(1);
    expect(res.body.projects[0].metadata).toEqual({ db_password: '[REDACTED]', note: 'ok' });
    expect(res.body.tasks[0].metadata).toEqual({ nested: [{ access_token: '[REDACTED]' }] });
    expect(res.body.auditLog).toHaveLength(500);
    expect(res.body.settings).toEqual({ theme: 'dark' });
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain('GATEWAY_TOKEN');
    expect(res.text).not.toContain('POSTGRES_PASSWORD');
  });
});

const P1 = '10000000-0000-4000-8000-000000000001';
const P2 = '10000000-0000-4000-8000-000000000002';
const T1 = '20000000-0000-4000-8000-000000000001';
const T2 = '20000000-0000-4000-8000-000000000002';
const W1 = '30000000-0000-4000-8000-000000000001';

const document = {
  version: 1,
  exportedAt: '2026-01-01T00:00:00.000Z',
  workflows: [{ id: W1, name: 'Imported flow', states: ['a', 'b'] }],
  projects: [
    { id: P1, name: 'Imported one', default_workflow_id: W1 },
    { id: P2, name: 'Imported two', status: 'paused' },
  ],
  tasks: [
    { id: T1, project_id: P1, title: 'parent' },
    { id: T2, project_id: P1, title: 'child', parent_task_id: T1, dependency_ids: [T1], status: 'ready' },
  ],
  auditLog: [
    {
      timestamp: '2025-12-31T00:00:00.000Z',
      actor: 'old-system',
      action: 'created',
      entity_type: 'project',
      entity_id: P1,
      project_id: P1,
    },
  ],
  settings: { theme: 'light' },
};

describe('legacy import', () => {
  it('previews counts only, without writing', async () => {
    const before = await tableDump();
    const res = await app.call('POST', '/api/import/preview', { body: document });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      version: 1,
      projects: 2,
      tasks: 2,
      workflows: 1,
      auditLog: 1,
      hasSettings: true,
      projectNames: ['Imported one', 'Imported two'],
    });
    expect(await tableDump()).toEqual(before);
    expect((await app.call('POST', '/api/import/preview', { body: { projects: [] } })).status).toBe(400);
    expect((await app.call('POST', '/api/import/preview', { body: { version: 1, tasks: [{ id: 'x' }] } })).status).toBe(400);
  });

  it('merges: upserts by id, appends audit rows once, applies operator settings, audits the import', async () => {
    const res = await app.call('POST', '/api/import', { body: document });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: { projects: 2, tasks: 2, workflows: 1, auditLog: 1 }, mode: 'merge' });
    // the imported audit rows are in the search index already (docs/adr/0008), and found by q
    expect((await app.db.query('SELECT 1 FROM audit_search_pending')).rows).toEqual([]);
    expect((await app.call('GET', '/api/audit?q=old-system')).body).toHaveLength(1);
    expect((await app.call('GET', `/api/tasks/${T2}`)).body).toMatchObject({ parent_task_id: T1, dependency_ids: [T1], status: 'ready' });
    expect((await app.call('GET', `/api/projects/${P1}`)).body.default_workflow).toMatchObject({ id: W1 });
    const again = await app.call('POST', '/api/import', { body: { ...document, projects: [{ id: P2, name: 'Renamed two' }] } });
    expect(again.body.imported.auditLog).toBe(0);
    expect((await app.call('GET', `/api/projects/${P2}`)).body.name).toBe('Renamed two');
    expect((await app.call('GET', `/api/projects/${P1}`)).body.name).toBe('Imported one');
    const theme = await app.db.query(`SELECT value FROM settings WHERE key = 'theme'`);
    expect(theme.rows).toEqual([{ value: 'light' }]);
    const audit = await app.db.query(`SELECT actor, new_value FROM audit_log WHERE action = 'imported' ORDER BY id`);
    expect(audit.rows).toHaveLength(2);
    expect(audit.rows[0]).toMatchObject({ actor: 'dashboard-operator', new_value: { mode: 'merge', imported: { projects: 2 } } });
  });

  it('replaces the tables of the sections given', async () => {
    const keep = (await app.call('POST', '/api/projects', { body: { name: 'Will vanish' } })).body;
    const res = await app.call('POST', '/api/import', {
      body: { version: 1, mode: 'replace', projects: [{ id: P2, name: 'Only one' }], tasks: [] },
    });
    expect(res.status).toBe(200);
    const projects = (await app.call('GET', '/api/projects')).body.map((p: { id: string }) => p.id);
    expect(projects).toEqual([P2]);
    expect(projects).not.toContain(keep.id);
    expect((await app.call('GET', '/api/tasks/all')).body).toEqual([]);
  });

  it('rolls everything back when any row is bad, leaving the database exactly as it was', async () => {
    await app.call('POST', '/api/import', { body: document });
    const before = await tableDump();
    const cases = [
      {
        ...document,
        mode: 'replace',
        tasks: [
          ...document.tasks,
          { id: '20000000-0000-4000-8000-000000000009', project_id: '10000000-0000-4000-8000-00000000dead', title: 'orphan' },
        ],
      },
      { ...document, mode: 'replace', tasks: [{ ...document.tasks[0], parent_task_id: '20000000-0000-4000-8000-00000000beef' }] },
      { ...document, projects: [{ id: P1, name: 'x', default_workflow_id: '30000000-0000-4000-8000-00000000dead' }] },
      { ...document, mode: 'replace', tasks: [{ id: T1, project_id: P1, title: '' }] },
      { ...document, settings: { theme: 'purple' } },
      { ...document, mode: 'wipe' },
    ];
    for (const body of cases) {
      const res = await app.call('POST', '/api/import', { body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
      expect(await tableDump()).toEqual(before);
    }
  });

  it('refuses an import whose tasks close a dependency or subtask cycle, naming it, with nothing written', async () => {
    await app.call('POST', '/api/import', { body: document });
    const before = await tableDump();
    const T3 = '20000000-0000-4000-8000-000000000003';
    const dependencyLoop = [
      { id: T1, project_id: P1, title: 'one', dependency_ids: [T2] },
      { id: T2, project_id: P1, title: 'two', dependency_ids: [T3] },
      { id: T3, project_id: P1, title: 'three', dependency_ids: [T1] },
    ];
    const dep = await app.call('POST', '/api/import', { body: { ...document, tasks: dependencyLoop } });
    expect(dep.status).toBe(400);
    expect(dep.body.error).toMatch(/dependency cycle/);
    for (const id of [T1, T2, T3]) expect(dep.body.error).toContain(id);
    expect(await tableDump()).toEqual(before);

    // a cycle closed through a task already stored (T2 is imported, T1 stays as it is: T1 has T2 as a subtask)
    await app.db.query('UPDATE tasks SET parent_task_id = NULL, dependency_ids = $2 WHERE id = $1', [T1, []]);
    await app.db.query('UPDATE tasks SET parent_task_id = $2 WHERE id = $1', [T2, T1]);
    const stored = await tableDump();
    const containsItsParent = await app.call('POST', '/api/import', {
      body: { ...document, tasks: [{ id: T1, project_id: P1, title: 'one', parent_task_id: T2 }] },
    });
    expect(containsItsParent.status).toBe(400);
    expect(containsItsParent.body.error).toMatch(new RegExp(`subtask cycle ${T1} -> ${T2} -> ${T1}`));
    expect(await tableDump()).toEqual(stored);

    const selfDependent = await app.call('POST', '/api/import', {
      body: { ...document, tasks: [{ id: T3, project_id: P1, title: 'self', dependency_ids: [T3] }] },
    });
    expect(selfDependent.status).toBe(400);
    expect(selfDependent.body.error).toContain(`${T3} -> ${T3}`);
  });

  it('drops a settings section holding a password-type key, with a warning', async () => {
    const res = await app.call('POST', '/api/import', { body: { version: 1, settings: { theme: 'dark', GATEWAY_PASSWORD: SECRET } } });
    expect(res.status).toBe(200);
    expect(res.body.warnings[0]).toMatch(/GATEWAY_PASSWORD/);
    expect(res.text).not.toContain(SECRET);
    const rows = await app.db.query(`SELECT key, value FROM settings WHERE key IN ('theme', 'GATEWAY_PASSWORD') ORDER BY key`);
    expect(rows.rows).toEqual([{ key: 'theme', value: 'light' }]);
  });

  it('never answers 5xx to random import bodies', async () => {
    const row = fc.record(
      { id: fc.oneof(fc.uuid(), fc.string()), name: fc.string(), title: fc.string(), project_id: fc.oneof(fc.constant(P1), fc.uuid()) },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.record(
        {
          version: fc.oneof(fc.integer(), fc.string()),
          mode: fc.constantFrom('merge', 'replace', 'x'),
          projects: fc.array(row, { maxLength: 3 }),
          tasks: fc.array(row, { maxLength: 3 }),
          settings: fc.dictionary(fc.string(), fc.anything()),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/import', '/api/import/preview'), body, async (path, b) => {
        const res = await app.call('POST', path, { body: b });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.error).toBe('string');
      }),
      { numRuns: 80 },
    );
  });
});
