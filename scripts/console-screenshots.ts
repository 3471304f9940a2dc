/// <reference lib="dom" />
// `npx tsx scripts/console-screenshots.ts` (after `npm run build`): starts `node dist/server.js` on a
// throwaway DATA_DIR (its own embedded PostgreSQL), fills it with a small demo fleet through the API,
// and writes a screenshot of each console screen in the light and the dark theme, at 1280×800 and at
// 390×844 (`-phone`), to docs/screenshots/.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startBuiltServer } from './built-server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs/screenshots');

async function call(url: string, method: string, target: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${target}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${target} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function demoFleet(url: string): Promise<{ project: string; task: string }> {
  const project = (await call(url, 'POST', '/api/projects', { name: 'Website relaunch' })).id as string;
  const tasks: [string, Record<string, unknown>][] = [
    ['Write the launch announcement', { status: 'backlog', priority: 'medium', owner: 'writer-agent', labels: ['docs'] }],
    ['Audit image alt texts', { status: 'backlog', priority: 'low' }],
    ['Migrate the blog to the new CMS', { status: 'ready', priority: 'high', owner: 'migrator-agent' }],
    ['Load-test the checkout', { status: 'in_progress', priority: 'critical', owner: 'qa-agent' }],
    ['Renew the TLS certificates', { status: 'blocked', priority: 'high', metadata: { blocked_reason: 'waiting for the DNS change' } }],
    ['Review the pricing page copy', { status: 'review', priority: 'medium', owner: 'editor-agent' }],
    ['Set up the staging environment', { status: 'completed', priority: 'medium' }],
  ];
  const ids: string[] = [];
  for (const [title, fields] of tasks) ids.push((await call(url, 'POST', '/api/tasks', { project_id: project, title, ...fields })).id);
  await call(url, 'PATCH', `/api/tasks/${ids[2]}`, { description: 'Move every post and its images; keep the URLs.', due_date: '2026-12-15' });
  await call(url, 'POST', `/api/tasks/${ids[2]}/dependencies`, { add: [ids[6]] });
  // a run of the pricing review waits for the operator's approval: an Inbox item and the card's stuck line
  await call(url, 'POST', '/api/workflow-templates', { name: 'copy-review', steps: ['draft', 'sign-off'] });
  await call(url, 'PUT', '/api/workflow-routing/copy-review', { agent_id: 'editor-agent' });
  const run = (await call(url, 'POST', '/api/workflow-runs', { workflow_type: 'copy-review', task_id: ids[5] })).id as string;
  await call(url, 'POST', '/api/workflow-runs/dispatcher/tick');
  const session = 'agent:editor-agent:subagent:demo';
  await call(url, 'POST', `/api/workflow-runs/${run}/claim`, { agent_id: 'editor-agent', session_id: session });
  await call(url, 'POST', `/api/workflow-runs/${run}/start`, { session_id: session });
  await call(url, 'POST', `/api/workflow-runs/${run}/approvals`, { session_id: session, step_name: 'sign-off' });
  return { project, task: ids[2]! };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'console-screenshots-'));
const server = await startBuiltServer({ DATA_DIR: dataDir });
try {
  const { project, task } = await demoFleet(server.url);
  const { default: sparticuz } = await import('@sparticuz/chromium');
  const executablePath = process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath());
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'] });
  await mkdir(out, { recursive: true });
  const screens: [string, string, string][] = [
    ['inbox', '/', 'Inbox'],
    ['board', `/board?project=${project}`, 'Board'],
    ['task', `/tasks/${task}`, 'Migrate the blog to the new CMS'],
    ['runs', '/runs', 'Runs'],
    ['audit', '/audit', 'Audit'],
    ['snapshots', '/snapshots', 'Snapshots'],
  ];
  // a stored snapshot for the Snapshots screen to list
  await call(server.url, 'POST', '/api/snapshots', { name: 'before-relaunch' });
  const sizes = [
    { suffix: '', viewport: { width: 1280, height: 800 } },
    { suffix: '-phone', viewport: { width: 390, height: 844 } },
  ];
  for (const { suffix, viewport } of sizes) for (const theme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport, colorScheme: theme, baseURL: server.url });
    const page = await context.newPage();
    for (const [name, target, heading] of screens) {
      await page.goto(target);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByRole('status').first().filter({ hasText: 'Live' }).waitFor();
      // a screen still reading its data says so ("Reading what waits…"): shoot what it shows once read
      await page.getByText(/^Reading /).first().waitFor({ state: 'detached', timeout: 60_000 });
      await page.screenshot({ path: path.join(out, `${name}-${theme}${suffix}.png`), fullPage: name === 'task' });
      console.log(`wrote docs/screenshots/${name}-${theme}${suffix}.png`);
    }
    await context.close();
  }
  await browser.close();
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
