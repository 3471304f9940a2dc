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
  const response = await fetch(`${url}${target}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${target} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function demoFleet(url: string): Promise<{ project: string; task: string; run: string }> {
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
  await call(url, 'PATCH', `/api/tasks/${ids[2]}`, {
    description: 'Move every post and its images; keep the URLs.',
    due_date: '2026-12-15',
  });
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
  await call(url, 'POST', `/api/workflow-runs/${run}/artifacts`, {
    session_id: session,
    artifact_type: 'text',
    title: 'Draft copy',
    content: 'Pricing that fits every team.',
  });
  // a second run waits in the queue, a third was cancelled: rows with each of Start, Cancel and Retry
  await call(url, 'POST', '/api/workflow-runs', { workflow_type: 'copy-review', task_id: ids[0] });
  const failed = (await call(url, 'POST', '/api/workflow-runs', { workflow_type: 'copy-review', task_id: ids[3] })).id as string;
  await call(url, 'POST', `/api/workflow-runs/${failed}/cancel`, { reason: 'superseded' });
  return { project, task: ids[2]!, run };
}

/** The Agents and Settings screens' demo: agents in each state, a token, a webhook with a failed test, a route with caps. */
async function demoAgentsAndSettings(url: string): Promise<void> {
  for (const [agent, status] of [
    ['writer-agent', 'online'],
    ['qa-agent', 'online'],
    ['migrator-agent', 'error'],
  ] as const) {
    await call(url, 'POST', '/api/agents/heartbeat', { agent_name: agent, status });
  }
  await call(url, 'PUT', '/api/agents/qa-agent/limits', { max_concurrent_runs: 2 });
  await call(url, 'PUT', '/api/agents/writer-agent/billing', { billing: 'subscription' });
  await call(url, 'POST', '/api/agent-tokens', { agent_id: 'writer-agent', label: 'writer on the build box', scopes: ['agent', 'read'] });
  await call(url, 'PUT', '/api/workflow-routing/copy-review', {
    agent_id: 'editor-agent',
    max_concurrent: 3,
    expected_cost_usd: 0.4,
    expected_tokens: 30000,
    exclusive_per_task: true,
  });
  const hook = (
    await call(url, 'POST', '/api/webhooks', { url: 'http://127.0.0.1:9/fleet-hook', events: ['run.failed', 'budget.breached'] })
  ).id as string;
  await call(url, 'POST', `/api/webhooks/${hook}/test`);
}

/** Costs: a price table, two budgets (one past its line) and a month of priced and unpriced usage. */
async function demoCosts(url: string): Promise<void> {
  await call(url, 'PUT', '/api/costs/prices', {
    prices: {
      'sonnet-demo': [
        { input_per_million: 3, output_per_million: 15 },
        { effective_from: '2026-11-01', input_per_million: 2.5, output_per_million: 12 },
      ],
    },
  });
  await call(url, 'POST', '/api/budgets', {
    name: 'Fleet monthly',
    scope: 'fleet',
    period: 'monthly',
    cap_usd: 40,
    action_on_exceed: 'warn',
  });
  await call(url, 'POST', '/api/budgets', {
    name: 'Editor weekly',
    scope: 'agent',
    scope_id: 'editor-agent',
    period: 'weekly',
    cap_usd: 2,
    action_on_exceed: 'hard_stop',
  });
  await call(url, 'POST', '/api/workflow-templates', { name: 'research', steps: ['search', 'summarise'] });
  await call(url, 'PUT', '/api/workflow-routing/research', { agent_id: 'writer-agent' });
  const now = new Date();
  for (let day = now.getUTCDate() - 1; day >= 0; day--) {
    const at = new Date(now.getTime() - day * 86_400_000);
    const run = (await call(url, 'POST', '/api/workflow-runs', { workflow_type: 'research' })).id as string;
    await call(url, 'PATCH', `/api/workflow-runs/${run}`, {
      model_id: day % 5 === 3 ? 'unpriced-demo' : 'sonnet-demo',
      input_tokens: 200_000 + (day % 4) * 150_000,
      output_tokens: 20_000,
      reported_at: at.toISOString(),
    });
  }
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'console-screenshots-'));
// the fake agent runtime of the tests gives Settings its scheduled jobs and health; webhooks may point at loopback
const fakeRuntime = path.join(root, 'test/fixtures/runtime');
const server = await startBuiltServer({
  DATA_DIR: dataDir,
  RUNTIME_CLI: path.join(fakeRuntime, 'fake-runtime.mjs'),
  RUNTIME_STATE_DIR: path.join(fakeRuntime, 'state'),
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_DELIVERY_INTERVAL_MS: '0',
});
try {
  const { project, task, run } = await demoFleet(server.url);
  await demoAgentsAndSettings(server.url);
  await demoCosts(server.url);
  const { default: sparticuz } = await import('@sparticuz/chromium');
  const executablePath = process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath());
  // under the C locale Chromium's navigator.language is 'en-US@posix', which Intl refuses (uPlot formats numbers with it)
  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
    env: { ...process.env, LANG: 'en_US.UTF-8' },
  });
  await mkdir(out, { recursive: true });
  const screens: [string, string, string][] = [
    ['inbox', '/', 'Inbox'],
    ['board', `/board?project=${project}`, 'Board'],
    ['task', `/tasks/${task}`, 'Migrate the blog to the new CMS'],
    ['runs', '/runs', 'Runs'],
    ['agents', '/agents', 'Agents'],
    ['settings', '/settings', 'Settings'],
    ['run', `/runs/${run}`, `Run ${run.slice(0, 8)} · copy-review`],
    ['costs', '/costs', 'Costs'],
    ['audit', '/audit', 'Audit'],
    ['snapshots', '/snapshots', 'Snapshots'],
    // a session of the fake runtime's state: the transcript viewer on its own page
    ['session', '/sessions/sess-main-1', 'Session sess-main-1'],
  ];
  // a stored snapshot for the Snapshots screen to list
  await call(server.url, 'POST', '/api/snapshots', { name: 'before-relaunch' });
  const sizes = [
    { suffix: '', viewport: { width: 1280, height: 800 } },
    { suffix: '-phone', viewport: { width: 390, height: 844 } },
  ];
  for (const { suffix, viewport } of sizes)
    for (const theme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport, colorScheme: theme, baseURL: server.url });
      const page = await context.newPage();
      for (const [name, target, heading] of screens) {
        await page.goto(target);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await page.getByRole('status').first().filter({ hasText: 'Live' }).waitFor();
        // a screen still reading its data says so ("Reading what waits…"): shoot what it shows once read
        await page
          .getByText(/^Reading /)
          .first()
          .waitFor({ state: 'detached', timeout: 60_000 });
        await page.screenshot({
          path: path.join(out, `${name}-${theme}${suffix}.png`),
          fullPage: name === 'task' || name === 'settings' || name === 'run' || name === 'costs',
        });
        console.log(`wrote docs/screenshots/${name}-${theme}${suffix}.png`);
      }
      await context.close();
    }
  await browser.close();
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
