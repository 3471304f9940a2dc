/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import { fakeRuntimeEnv } from '../fixtures/runtime/fake-runtime-env';
import { expectNoSeriousAxeViolations, scrollsSideways, useConsole } from '../support/console-browser';

/**
 * The Settings screen in a real Chromium, its server on the fake runtime (test/fixtures/runtime) and
 * allowed to deliver to loopback: a webhook added with its events, its secret shown once, tested
 * against a receiver here, its delivery in the log; the runtime's jobs and health; the server.
 */
const ui = useConsole({ env: { ...fakeRuntimeEnv(), WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_DELIVERY_INTERVAL_MS: '0' } });

const received: { event: string | undefined; body: string }[] = [];
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ event: req.headers['x-webhook-event'] as string | undefined, body });
      res.writeHead(202, { 'content-type': 'text/plain' });
      res.end('accepted');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('the Settings screen', () => {
  it('adds a webhook with its events, shows its secret once, sends a test to a loopback receiver and shows the delivery in the log', async () => {
    const page = await ui.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.url()).origin });
    await page.goto('/settings');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const form = page.getByRole('form', { name: 'Add webhook' });
    await form.getByLabel('URL').fill(receiverUrl);
    await form.getByRole('checkbox', { name: 'task:changed' }).check();
    await form.getByRole('checkbox', { name: 'run.failed' }).check();
    await form.getByRole('button', { name: 'Add webhook' }).click();

    const added = page.getByRole('group', { name: 'Webhook added' });
    const secret = (await added.locator('code').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await added.getByRole('button', { name: 'Copy secret' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await added.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('group', { name: 'Webhook added' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    const hooks = (await ui.call('GET', '/api/webhooks')).body.webhooks as Array<{ id: string; url: string; events: string[] }>;
    expect(hooks.find((h) => h.url === receiverUrl)?.events).toEqual(['task:changed', 'run.failed']);
    const card = page.getByRole('listitem', { name: receiverUrl });
    await expect.poll(() => card.textContent()).toContain('task:changed, run.failed');

    await card.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => card.getByRole('status').textContent()).toBe('Test delivered: the receiver answered 202.');
    expect(received.map((r) => r.event)).toEqual(['webhook.test']);
    const log = card.getByRole('table', { name: 'Delivery log' });
    await expect.poll(() => log.getByRole('row').count()).toBe(2);
    const cells = await log.getByRole('row').nth(1).getByRole('cell').allTextContents();
    expect(cells.slice(0, 5)).toEqual(['webhook.test', 'Delivered', '1', '202', '—']);
    await expectNoSeriousAxeViolations(page);
  });

  it('refuses "Add webhook" without an event, and shows the server’s refusal of a bad URL', async () => {
    const page = await ui.newPage();
    await page.goto('/settings');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const form = page.getByRole('form', { name: 'Add webhook' });
    await form.getByLabel('URL').fill('ftp://files.example.com/drop');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toBe('Choose at least one event.');
    await form.getByRole('checkbox', { name: 'All events' }).check();
    expect(await form.getByRole('checkbox', { name: 'task:changed' }).isDisabled()).toBe(true);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/http or https URL/);
  });

  it('shows the routing entries, the governance policy, the runtime’s jobs (run now, recent runs) and health, and the server', async () => {
    expect((await ui.call('POST', '/api/workflow-templates', { name: 'settings-review', steps: ['draft'] })).status).toBe(201);
    const put = await ui.call('PUT', '/api/workflow-routing/settings-review', {
      agent_id: 'editor',
      max_concurrent: 3,
      expected_cost_usd: 2,
      expected_tokens: 5000,
      exclusive_per_task: true,
    });
    expect(put.status).toBe(200);
    const page = await ui.newPage();
    await page.goto('/settings');
    const route = page.getByRole('listitem', { name: 'settings-review' });
    await expect.poll(() => route.textContent()).toContain('Expected cost$2.00');
    expect(await route.textContent()).toContain('Yes: one live run per task');
    expect(await page.getByRole('list', { name: 'Who may take each action' }).getByRole('listitem').count()).toBe(10);

    const job = page.getByRole('listitem', { name: 'Daily digest' });
    expect(await job.textContent()).toContain('0 7 * * * (Europe/Paris)');
    await job.getByRole('button', { name: 'Run now' }).click();
    await expect.poll(() => job.getByRole('status').textContent()).toBe('Started.');
    await job.getByRole('button', { name: 'Recent runs' }).click();
    await expect.poll(() => job.getByRole('list', { name: 'Recent runs' }).getByRole('listitem').count()).toBe(3);
    expect(await page.getByRole('listitem', { name: 'Inbox poll' }).getByRole('button', { name: 'Enable' }).count()).toBe(1);

    const runtime = page.getByRole('region', { name: 'Runtime health' });
    expect(await runtime.textContent()).toContain('StatusHealthy');
    const server = page.getByRole('region', { name: 'Server' });
    expect(await server.textContent()).toContain(`Version${packageJson.version}`);
    expect(await server.getByRole('link', { name: /^Metrics/ }).getAttribute('href')).toBe('/api/metrics');
    expect(await server.getByRole('link', { name: /^OpenAPI document/ }).getAttribute('href')).toBe('/api/openapi.json');
    // a routing change made elsewhere shows without a reload
    await ui.call('PUT', '/api/workflow-routing/settings-review', { agent_id: 'reviewer' });
    await expect.poll(() => route.textContent()).toContain('Agentreviewer');
  });

  it('has no serious axe violation and no sideways scrolling at 390×844, light and dark, with a delivery log open', async () => {
    expect((await ui.call('POST', '/api/webhooks', { url: `${receiverUrl}/phone`, events: ['*'] })).status).toBe(201);
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await ui.newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      await page.goto('/settings');
      const card = page.getByRole('listitem', { name: `${receiverUrl}/phone` });
      await card.getByRole('button', { name: 'Send test' }).click();
      await card.getByRole('table', { name: 'Delivery log' }).waitFor();
      await page.getByRole('region', { name: 'Server' }).waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoSeriousAxeViolations(page);
    }
  });
});
