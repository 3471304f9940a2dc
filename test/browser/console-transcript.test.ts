import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';
import { questionLine, TRANSCRIPT_MODEL, turnLines, writeLongTranscript } from '../fixtures/runtime/long-transcript';

/**
 * The transcript viewer on the session page (/sessions/:id): a transcript of several thousand lines
 * opened from a task's linked sessions with its first page only, searched across the whole session,
 * jumped through, its thinking expanded, and followed while lines are appended to its file.
 */
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'console-transcript-'));
const RARE_TURN = 777;
const long = writeLongTranscript({
  stateDir,
  turns: 1000,
  wordsOf: (turn) => (turn === RARE_TURN ? 'the zebracorn migration' : undefined),
});
const growing = writeLongTranscript({ stateDir, sessionId: 'sess-growing', turns: 500 });
const ui = useConsole({ env: { RUNTIME_STATE_DIR: stateDir } });
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const row = (page: Page, line: number) => page.locator(`article[data-line="${line}"]`);
const transcriptStatus = (page: Page) => page.getByRole('status').filter({ hasText: ' lines' });

async function openSession(page: Page, sessionId: string) {
  await page.goto(`/sessions/${sessionId}`);
  await page.getByText('Question about turn 0?').waitFor();
}

describe('the transcript viewer', () => {
  it('opens from a task’s linked sessions with its header and first lines, reading pages of lines, never the whole transcript', async () => {
    const projectId = (await ui.call('POST', '/api/projects', { name: 'Transcripts' })).body.id as string;
    const taskId = (await ui.call('POST', '/api/tasks', { project_id: projectId, title: 'Has a session' })).body.id as string;
    const runId = randomUUID();
    await ui.app.db.query(
      `INSERT INTO workflow_runs (id, workflow_type, status, task_id, gateway_session_id, created_at) VALUES ($1, 'content-pipeline', 'completed', $2, $3, now())`,
      [runId, taskId, long.key],
    );
    const page = await ui.newPage();
    const eventReads: string[] = [];
    page.on('request', (r) => {
      if (/\/api\/rt\/sessions\/[^/]+\/events/.test(r.url())) eventReads.push(r.url());
    });
    await page.goto(`/tasks/${taskId}`);
    // the task's runs and its sessions arrive as two answers, the run's link just above the session's:
    // the page is read once both are on it, and the link is followed from the keyboard, which no
    // late answer moving the lines can send to the run instead (a click once landed there on CI)
    await page.getByRole('link', { name: runId.slice(0, 8), exact: true }).waitFor();
    const sessionLink = page.getByRole('link', { name: long.key });
    expect(await sessionLink.getAttribute('href')).toBe(`/sessions/${long.sessionId}`);
    await sessionLink.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Session ${long.sessionId}`);
    await page.getByText('Question about turn 0?').waitFor();
    const facts = page.locator('dl.session-facts');
    await expect.poll(() => facts.textContent()).toContain(`Model${TRANSCRIPT_MODEL}`);
    expect(await facts.textContent()).toContain('Agentmain');
    expect(await facts.locator('time').first().getAttribute('datetime')).toBe('2026-11-01T09:00:00.000Z');
    await expect.poll(() => transcriptStatus(page).textContent()).toContain(`${long.lines} lines`);
    // the first page of lines only: 200 events at a time
    expect(eventReads.length).toBeGreaterThan(0);
    expect(eventReads.length).toBeLessThanOrEqual(2);
    for (const url of eventReads) expect(new URL(url).searchParams.get('limit')).toBe('200');
    expect(await row(page, long.lines).count()).toBe(0);
  });

  it('opens a session named by its key (as a run names it) on its transcript', async () => {
    const page = await ui.newPage();
    await page.goto(`/sessions/${encodeURIComponent(long.key)}`);
    await page.getByText('Question about turn 0?').waitFor();
    await expect.poll(() => transcriptStatus(page).textContent()).toContain(`${long.lines} lines`);
    const search = page.waitForRequest((r) => r.url().includes(`/api/rt/sessions/${long.sessionId}/search?`));
    const box = page.getByRole('searchbox', { name: 'Search the transcript' });
    await box.fill('turn 499');
    await box.press('Enter');
    await search;
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('match 1 of');
  });

  it('finds words across the whole transcript through the search field and moves to each match', async () => {
    const page = await ui.newPage();
    await openSession(page, long.sessionId);
    const box = page.getByRole('searchbox', { name: 'Search the transcript' });
    await box.fill('zebracorn');
    await box.press('Enter');
    const line = questionLine(RARE_TURN);
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('match 1 of 5 for “zebracorn”');
    await row(page, line).waitFor();
    expect(await row(page, line).locator('mark').first().textContent()).toBe('zebracorn');
    // the next match is the collapsed thinking of the following line, shown because it matches
    await page.getByRole('button', { name: 'Next match' }).click();
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('match 2 of 5');
    await row(page, line + 1)
      .getByText('Thinking it over for the zebracorn migration.')
      .waitFor();
    await page.getByRole('button', { name: 'Previous match' }).click();
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('match 1 of 5');
    await box.fill('no such words anywhere');
    await box.press('Enter');
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('no match for “no such words anywhere”');
  });

  it('jumps to a line, and from a tool call to its result and back', async () => {
    const page = await ui.newPage();
    await openSession(page, long.sessionId);
    const call = questionLine(499) + 1;
    await page.getByLabel('Jump to line').fill(String(call));
    await page.getByRole('button', { name: 'Jump', exact: true }).click();
    await row(page, call).getByText('Looking into turn 499.').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-line'))).toBe(String(call));
    await row(page, call)
      .getByRole('button', { name: `Result on line ${call + 1}` })
      .click();
    await row(page, call + 1)
      .getByText('output of turn 499')
      .waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-line'))).toBe(String(call + 1));
    await row(page, call + 1)
      .getByRole('button', { name: `Call on line ${call}` })
      .click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-line'))).toBe(String(call));
    // the line is in the URL: a link to it opens there
    expect(new URL(page.url()).searchParams.get('line')).toBe(String(call));
    const linked = await ui.newPage();
    await linked.goto(`/sessions/${long.sessionId}?line=3000`);
    await row(linked, 3000).waitFor();
    await expect.poll(() => linked.evaluate(() => document.activeElement?.getAttribute('data-line'))).toBe('3000');
  });

  it('keeps thinking collapsed behind a button that expands it', async () => {
    const page = await ui.newPage();
    await openSession(page, long.sessionId);
    const line = questionLine(0) + 1;
    const thinking = row(page, line).getByRole('button', { name: 'Show thinking' });
    expect(await thinking.getAttribute('aria-expanded')).toBe('false');
    expect(await row(page, line).getByText('Thinking it over for turn 0.').count()).toBe(0);
    await thinking.click();
    await row(page, line).getByText('Thinking it over for turn 0.').waitFor();
    expect(await row(page, line).getByRole('button', { name: 'Hide thinking' }).getAttribute('aria-expanded')).toBe('true');
  });

  it('follows lines appended to the session while it is open and shows its end', async () => {
    const page = await ui.newPage();
    // the live tails the page opened and how each answered, told when the appended turn does not show
    const tails: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/tail?')) tails.push(`${r.status()} ${new URL(r.url()).search}`);
    });
    await openSession(page, growing.sessionId);
    await page.getByRole('button', { name: 'Go to end' }).click();
    await page.getByText('Answer for turn 499.').waitFor();
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('following new lines');
    appendFileSync(growing.file, `${turnLines(500, 120, 'the appended turn').join('\n')}\n`);
    await page
      .getByText('Answer for the appended turn.')
      .waitFor()
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\nstatus: ${await transcriptStatus(page).textContent()}\ntails: ${tails.join('; ')}`);
      });
    await expect.poll(() => transcriptStatus(page).textContent()).toContain(`${growing.lines + 4} lines`);
    await expect.poll(() => page.getByText('Answer for the appended turn.').isVisible()).toBe(true);
  });

  it('stops following once the operator scrolls up, and follows again back at the end', async () => {
    const page = await ui.newPage();
    await openSession(page, growing.sessionId);
    await page.getByRole('button', { name: 'Go to end' }).click();
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('following new lines');
    const region = page.getByRole('region', { name: /^Transcript lines/ });
    await region.evaluate((el) => el.scrollBy(0, -2000));
    await expect.poll(() => transcriptStatus(page).textContent()).not.toContain('following new lines');
    const before = Number(/(\d+) lines/.exec((await transcriptStatus(page).textContent()) ?? '')?.[1]);
    appendFileSync(growing.file, `${turnLines(501, 120, 'a turn written above the fold').join('\n')}\n`);
    // the new lines are counted, and the viewer stays where the operator put it
    await expect.poll(() => transcriptStatus(page).textContent()).toContain(`${before + 4} lines`);
    expect(await page.getByText('Answer for a turn written above the fold.').count()).toBe(0);
    await page.getByRole('button', { name: 'Go to end' }).click();
    await page.getByText('Answer for a turn written above the fold.').waitFor();
    await expect.poll(() => transcriptStatus(page).textContent()).toContain('following new lines');
  });

  it('has no serious axe violation and no sideways scrolling at 390×844, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await openSession(page, long.sessionId);
      await row(page, 4).getByRole('button', { name: 'Show thinking' }).click();
      const box = page.getByRole('searchbox', { name: 'Search the transcript' });
      await box.fill('turn 3');
      await box.press('Enter');
      await expect.poll(() => transcriptStatus(page).textContent()).toContain('match 1 of');
      await expectNoSeriousAxeViolations(page);
      expect(await scrollsSideways(page)).toBe(false);
    }
  });
});
