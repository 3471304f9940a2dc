import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/** The Snapshots screen: a snapshot created and downloaded; a restore previewed (the diff first), confirmed by name, applied, and found again after a reload; a stopped restore resumed. */
// statements may run long here: one test makes a restore's write of tasks take seconds
const ui = useConsole({ env: { DB_STATEMENT_TIMEOUT_MS: '30000' } });
let project: string;

beforeAll(async () => {
  project = (await ui.call('POST', '/api/projects', { name: 'Snapshotted' })).body.id;
});

const task = async (title: string) => (await ui.call('POST', '/api/tasks', { project_id: project, title })).body.id as string;
const list = (page: Page) => page.getByRole('region', { name: 'Stored snapshots' });

async function createSnapshot(page: Page, name: string) {
  await page.getByLabel('Name (optional)').fill(name);
  await page.getByRole('button', { name: 'Create snapshot' }).click();
  await expect
    .poll(() =>
      list(page)
        .getByRole('row', { name: new RegExp(`^${name} `) })
        .count(),
    )
    .toBe(1);
}

describe('the Snapshots screen', () => {
  it('creates a snapshot, lists it with its size, date and content hash, and downloads it', async () => {
    const page = await ui.newPage();
    await page.goto('/snapshots');
    await expect.poll(() => list(page).textContent()).toContain('No snapshot yet.');
    await expectNoSeriousAxeViolations(page);
    await createSnapshot(page, 'first-look');
    const stored = (await ui.call('GET', '/api/snapshots')).body.snapshots.find((s: { name: string }) => s.name === 'first-look');
    expect(stored.content_hash).toMatch(/^[0-9a-f]{64}$/);
    const row = list(page).getByRole('row', { name: /^first-look / });
    expect(await row.locator('code').textContent()).toBe(stored.content_hash);
    expect(await row.textContent()).toMatch(/\d+(\.\d)? (B|KB|MB)/);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('first-look.json');
    const artifact = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(artifact.manifest).toMatchObject({ snapshot_id: stored.snapshot_id, content_hash: stored.content_hash });
    await expectNoSeriousAxeViolations(page);
  });

  it('previews a restore table by table before anything is written, applies it once the name is typed, and shows the result again after a reload', async () => {
    const kept = await task('Kept by the snapshot');
    const page = await ui.newPage();
    await page.goto('/snapshots');
    await createSnapshot(page, 'before-change');
    expect((await ui.call('PATCH', `/api/tasks/${kept}`, { title: 'Changed after the snapshot' })).status).toBe(200);
    const later = await task('Made after the snapshot');

    await list(page)
      .getByRole('row', { name: /^before-change / })
      .getByRole('button', { name: 'Restore', exact: true })
      .click();
    const preview = page.getByRole('region', { name: 'Restore preview: before-change' });
    const tasksRow = preview.getByRole('row', { name: /^tasks / });
    // merge: the changed task comes back, the later one stays
    await expect.poll(() => tasksRow.locator('td').allTextContents()).toEqual(['0', '1', '0', expect.stringContaining(`~ ${kept}`)]);
    await preview.getByRole('radio', { name: /^Replace/ }).check();
    await expect.poll(() => tasksRow.locator('td').allTextContents()).toEqual(['0', '1', '1', expect.stringContaining(`~ ${kept}`)]);
    expect((await ui.call('GET', `/api/tasks/${kept}`)).body.title).toBe('Changed after the snapshot'); // the preview wrote nothing
    await expectNoSeriousAxeViolations(page);

    const apply = preview.getByRole('button', { name: 'Apply restore' });
    expect(await apply.isDisabled()).toBe(true);
    await preview.getByLabel(/^Type the snapshot’s name/).fill('before-chang');
    expect(await apply.isDisabled()).toBe(true);
    await preview.getByLabel(/^Type the snapshot’s name/).fill('before-change');
    await apply.click();

    const restore = page.getByRole('region', { name: 'Restore', exact: true });
    await expect.poll(() => restore.getByRole('status').textContent(), { timeout: 60_000 }).toBe('Restored.');
    expect(new URL(page.url()).searchParams.get('restore')).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => restore.getByRole('row', { name: /^tasks \d+ 1$/ }).count()).toBe(1);
    expect((await ui.call('GET', `/api/tasks/${kept}`)).body.title).toBe('Kept by the snapshot');
    expect((await ui.call('GET', `/api/tasks/${later}`)).status).toBe(404);
    await expectNoSeriousAxeViolations(page);

    // the page reloaded: the server says how the restore of the URL ended
    await page.reload();
    await expect.poll(() => page.getByRole('region', { name: 'Restore', exact: true }).getByRole('status').textContent()).toBe('Restored.');
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: 'Restore', exact: true })
          .getByRole('row', { name: /^tasks \d+ 1$/ })
          .count(),
      )
      .toBe(1);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('');
  });

  it('shows a restore still running after a reload, its progress from the server, then its result when it ends', async () => {
    const page = await ui.newPage();
    await page.goto('/snapshots');
    const slow = await task('Restored slowly');
    await createSnapshot(page, 'slow-restore');
    expect((await ui.call('PATCH', `/api/tasks/${slow}`, { title: 'Changed before the slow restore' })).status).toBe(200);
    // the restore's write of tasks takes seconds (only inside a restore's step: the apply sets task_server.restoring)
    await ui.app.db.query(`CREATE FUNCTION slow_restored_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF current_setting('task_server.restoring', true) = 'on' THEN PERFORM pg_sleep(4); END IF; RETURN NEW; END $$`);
    await ui.app.db.query(
      'CREATE TRIGGER slow_restored_tasks BEFORE INSERT OR UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION slow_restored_tasks()',
    );
    try {
      await list(page)
        .getByRole('row', { name: /^slow-restore / })
        .getByRole('button', { name: 'Restore', exact: true })
        .click();
      const preview = page.getByRole('region', { name: 'Restore preview: slow-restore' });
      await preview.getByLabel(/^Type the snapshot’s name/).fill('slow-restore');
      await preview.getByRole('button', { name: 'Apply restore' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('restore')).toMatch(/^[0-9a-f-]{36}$/);
      const restoreId = new URL(page.url()).searchParams.get('restore')!;
      await expect.poll(async () => (await ui.call('GET', `/api/restore/${restoreId}`)).body?.state).toBe('running');

      // the page reloads while the server still applies: the restore of the URL is found running
      await page.reload();
      const restore = page.getByRole('region', { name: 'Restore', exact: true });
      await expect.poll(() => restore.getByRole('status').textContent()).toBe('Restoring…');
      expect(await restore.getByRole('progressbar', { name: 'Restore progress' }).count()).toBe(1);
      expect(await restore.getByRole('button', { name: 'Done' }).count()).toBe(0);
      // restore:completed on the stream brings the result, with no request of the page's own
      await expect.poll(() => restore.getByRole('status').textContent(), { timeout: 60_000 }).toBe('Restored.');
      await expect.poll(() => restore.getByRole('row', { name: /^tasks 1 0$/ }).count()).toBe(1);
      expect((await ui.call('GET', `/api/tasks/${slow}`)).body.title).toBe('Restored slowly');
    } finally {
      await ui.app.db.query('DROP TRIGGER slow_restored_tasks ON tasks');
      await ui.app.db.query('DROP FUNCTION slow_restored_tasks()');
    }
  });

  it('finds a restore that stopped half-way after a reload, and resumes it with the same id', async () => {
    const page = await ui.newPage();
    await page.goto('/snapshots');
    await createSnapshot(page, 'to-resume');
    const snapshotId = (await ui.call('GET', '/api/snapshots')).body.snapshots.find(
      (s: { name: string }) => s.name === 'to-resume',
    ).snapshot_id;
    const drifted = await task('Drifted away');
    expect((await ui.call('PATCH', `/api/tasks/${drifted}`, { title: 'Drifted further' })).status).toBe(200);
    // what a server stopped during the apply leaves: a checkpoint with its first step done, held by nobody
    const restoreId = randomUUID();
    await ui.app.db.query(
      `INSERT INTO restore_checkpoints (restore_id, snapshot_id, mode, completed_tables) VALUES ($1, $2, 'merge', '{workflows}')`,
      [restoreId, snapshotId],
    );
    await page.goto(`/snapshots?restore=${restoreId}`);
    const restore = page.getByRole('region', { name: 'Restore', exact: true });
    await expect.poll(() => restore.getByRole('status').textContent()).toMatch(/^The restore was interrupted/);
    expect(await restore.getByRole('progressbar', { name: 'Restore progress' }).count()).toBe(1);
    await restore.getByRole('button', { name: 'Resume restore' }).click();
    await expect.poll(() => restore.getByRole('status').textContent(), { timeout: 60_000 }).toBe('Restored.');
    expect((await ui.call('GET', `/api/restore/${restoreId}`)).body).toMatchObject({ state: 'completed', summary: { resumed: true } });
  });

  it('fits a phone (390×844) without sideways scrolling, in both themes', async () => {
    // the newest snapshot differs from the database by one changed task: its preview has a row to show
    const changed = await task('On a phone');
    expect((await ui.call('POST', '/api/snapshots', { name: 'phone' })).status).toBe(201);
    expect((await ui.call('PATCH', `/api/tasks/${changed}`, { title: 'On a phone, renamed' })).status).toBe(200);
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await page.goto('/snapshots');
      await expect.poll(() => list(page).getByRole('row').count()).toBeGreaterThan(1);
      await list(page).getByRole('button', { name: 'Restore', exact: true }).first().click();
      await expect
        .poll(() =>
          page
            .getByRole('region', { name: 'Restore preview: phone' })
            .getByRole('row', { name: /^tasks / })
            .count(),
        )
        .toBe(1);
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoSeriousAxeViolations(page);
    }
  });
});
