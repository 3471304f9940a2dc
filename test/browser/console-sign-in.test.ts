/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, useConsole } from '../support/console-browser';

/** Sign-in when DASHBOARD_AUTH_TOKEN is set: the token in storage and headers only, a 401 back to the form. */
const TOKEN = 'console-operator-token-0123456789';
const ui = useConsole({ token: TOKEN });

const KEY = 'fleet-console.token';
const stored = (page: Page) => page.evaluate((key) => ({ session: sessionStorage.getItem(key), local: localStorage.getItem(key) }), KEY);

async function signIn(page: Page, token: string, remember = false) {
  await page.getByLabel('Access token').fill(token);
  if (remember) await page.getByLabel('Remember on this device').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('signing in to the console', () => {
  it('opens on the Sign in form, refuses a wrong token, and tells an agent token the console is the operator’s', async () => {
    const page = await ui.newPage();
    await page.goto('/');
    await expect.poll(() => page.getByRole('form', { name: 'Sign in' }).count()).toBe(1);
    await expectNoSeriousAxeViolations(page);
    await signIn(page, 'not-the-token');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That access token was refused.');
    await signIn(page, 'fta_0123456789abcdef0123456789abcdef');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/agent token.*console is the operator’s/);
    expect(await stored(page)).toEqual({ session: null, local: null });
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
  });

  it('with the right token shows the console, keeps the token in sessionStorage, sends it as a Bearer header and never in a URL', async () => {
    const page = await ui.newPage();
    const urls: string[] = [];
    const bearers = new Set<string | undefined>();
    await page.goto('/runs');
    await expect.poll(() => page.getByRole('form', { name: 'Sign in' }).count()).toBe(1);
    // from here on (the console learnt from a 401 that it needs a token), every API call carries it
    page.on('request', (request) => {
      urls.push(request.url());
      if (new URL(request.url()).pathname.startsWith('/api/')) bearers.add(request.headers().authorization);
    });
    await signIn(page, TOKEN);
    await expect.poll(() => page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    expect(await stored(page)).toEqual({ session: TOKEN, local: null });
    await page.reload();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    expect(await page.getByRole('form', { name: 'Sign in' }).count()).toBe(0);
    expect(urls.filter((u) => u.includes(TOKEN))).toEqual([]);
    expect([...bearers]).toEqual([`Bearer ${TOKEN}`]);
  });

  it('keeps the token in localStorage when remembered, across pages, until Sign out forgets it', async () => {
    const page = await ui.newPage();
    await page.goto('/runs');
    await signIn(page, TOKEN, true);
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Live');
    expect(await stored(page)).toEqual({ session: null, local: TOKEN });
    const second = await page.context().newPage();
    await second.goto('/agents');
    await expect.poll(() => second.getByRole('heading', { level: 1 }).textContent()).toBe('Agents');
    expect(await second.getByRole('form', { name: 'Sign in' }).count()).toBe(0);
    await second.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => second.getByRole('form', { name: 'Sign in' }).count()).toBe(1);
    expect(await stored(second)).toEqual({ session: null, local: null });
  });

  it('returns to Sign in when the server answers 401 (a token that stopped being valid)', async () => {
    const page = await ui.newPage();
    await page.goto('/runs');
    await page.evaluate((key) => sessionStorage.setItem(key, 'a-token-that-was-rotated'), KEY);
    await page.goto('/board');
    await expect.poll(() => page.getByRole('form', { name: 'Sign in' }).count()).toBe(1);
    expect(await stored(page)).toEqual({ session: null, local: null });
  });
});
