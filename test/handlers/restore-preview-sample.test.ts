import { describe, expect, it } from 'vitest';
import { PREVIEW_SAMPLE_ROWS, PREVIEW_SAMPLE_VALUE_CHARS } from '../../core/restore/preview';
import { useTestApp } from '../support/use-app';

/** POST /api/restore/preview's per-table `sample`: a few rows the restore would write, redacted and cut short, for a person to read. */
const app = useTestApp();

describe('the restore preview’s sample of rows', () => {
  it('shows added rows as the snapshot holds them and changed rows column by column, secrets redacted on both sides, long values cut', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Sampled' } })).body.id;
    const task = (
      await app.call('POST', '/api/tasks', {
        body: {
          project_id: project,
          title: 'Title in the snapshot',
          description: 'x'.repeat(500),
          metadata: { api_key: 'sk-live-secret', note: 'kept' },
        },
      })
    ).body.id;
    const view = (await app.call('POST', '/api/views', { body: { name: 'View in the snapshot', filters: {} } })).body.id;
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'sampled' } });
    expect(created.status).toBe(201);

    expect(
      (await app.call('PATCH', `/api/tasks/${task}`, { body: { title: 'Title changed later', description: 'y'.repeat(500) } })).status,
    ).toBe(200);
    await app.db.query(`UPDATE tasks SET metadata = jsonb_set(metadata, '{api_key}', '"sk-rotated-secret"') WHERE id = $1`, [task]);
    await app.db.query('DELETE FROM saved_views WHERE id = $1', [view]);

    const preview = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: created.body.snapshot_id } });
    expect(preview.status).toBe(200);
    const tasks = preview.body.tables.tasks.sample;
    expect(tasks.added).toEqual([]);
    expect(tasks.changed).toHaveLength(1);
    const change = tasks.changed[0];
    expect(change.key).toBe(task);
    const byColumn = Object.fromEntries(change.columns.map((c: { column: string }) => [c.column, c]));
    expect(byColumn.title).toEqual({ column: 'title', live: 'Title changed later', snapshot: 'Title in the snapshot' });
    expect(byColumn.description.snapshot).toBe(`${JSON.stringify('x'.repeat(500)).slice(0, PREVIEW_SAMPLE_VALUE_CHARS)}…`);
    // the secret differs live, but both sides read [REDACTED]: neither is shown, nor is the column a change
    expect(byColumn.metadata).toBeUndefined();
    expect(preview.text).not.toContain('sk-live-secret');
    expect(preview.text).not.toContain('sk-rotated-secret');

    const views = preview.body.tables.saved_views;
    expect(views.added).toBe(1);
    expect(views.sample.added).toEqual([{ key: view, row: expect.objectContaining({ id: view, name: 'View in the snapshot' }) }]);
    expect(views.sample.changed).toEqual([]);
  });

  it('keeps at most a few rows of each kind whatever the table holds', async () => {
    const project = (await app.call('POST', '/api/projects', { body: { name: 'Many' } })).body.id;
    for (let i = 0; i < PREVIEW_SAMPLE_ROWS + 2; i++)
      await app.call('POST', '/api/tasks', { body: { project_id: project, title: `Many ${i}` } });
    const created = await app.call('POST', '/api/snapshots', { body: { name: 'many' } });
    await app.db.query(`UPDATE tasks SET title = title || ' later', updated_at = now() WHERE project_id = $1`, [project]);
    const preview = await app.call('POST', '/api/restore/preview', { body: { snapshot_id: created.body.snapshot_id } });
    expect(preview.body.tables.tasks.conflicts).toBe(PREVIEW_SAMPLE_ROWS + 2);
    expect(preview.body.tables.tasks.sample.changed).toHaveLength(PREVIEW_SAMPLE_ROWS);
  });
});
