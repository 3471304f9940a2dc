/// <reference lib="dom" />
// (the DOM types: page.evaluate callbacks run in the browser)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startChild, type Child } from './child-process';
import { useTestApp } from './use-app';
import type { TestApp } from './test-app';

/**
 * One file's console under test: `node dist/server.js` (the built runner, serving dist/console/)
 * on this file's own database, and one Chromium. `app` reaches the same database through the
 * handlers, to arrange state and to act as "another client".
 */
export interface ConsoleUnderTest {
  app: TestApp;
  url(): string;
  server(): Child;
  /** Stops the server (SIGTERM) and starts it again on the same port and database. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** A fresh browser context (its own storage) with one page, at the given viewport. */
  newPage(options?: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' }): Promise<Page>;
  /** Calls the API as the operator from outside the browser. */
  call(method: string, target: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export function useConsole(options: { token?: string; env?: Record<string, string> } = {}): ConsoleUnderTest {
  const app = useTestApp(options.token ? { env: { DASHBOARD_AUTH_TOKEN: options.token } } : {});
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  let server: Child | undefined;
  let url = '';
  let port = '0';
  let dataDir = '';

  const startServer = async () => {
    const env = { ...process.env };
    for (const key of ['DASHBOARD_AUTH_TOKEN', 'HOST', 'VITEST', 'NODE_ENV', 'DASHBOARD_UI_DIR']) delete env[key];
    server = startChild(process.execPath, ['dist/server.js'], {
      env: {
        ...env,
        ...(options.token ? { DASHBOARD_AUTH_TOKEN: options.token } : {}),
        ...options.env,
        DATABASE_URL: app.databaseUrl,
        DATA_DIR: dataDir,
        PORT: port,
        LOG_LEVEL: 'WARN',
        DISPATCHER_INTERVAL_MS: '0',
        CRON_MANAGER_PORT: '0',
      },
    });
    url = (await server.waitFor(/task server ready at (http:\/\/\S+)/, 60_000))[1]!;
    port = new URL(url).port;
  };
  const stopServer = async () => {
    if (server && server.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-console-'));
    await startServer();
    // under the C locale Chromium's navigator.language is 'en-US@posix', which Intl refuses (uPlot formats numbers with it)
    browser = await chromium.launch({
      executablePath: inject('chromiumPath'),
      args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
      env: { ...process.env, LANG: 'en_US.UTF-8' },
    });
  });
  afterAll(async () => {
    await browser?.close();
    if (server && server.proc.exitCode === null) {
      server.proc.kill('SIGKILL');
      await server.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  return {
    app,
    url: () => url,
    server: () => server!,
    stopServer,
    startServer,
    async newPage(o = {}) {
      const context = await browser!.newContext({
        viewport: o.viewport ?? { width: 1280, height: 800 },
        colorScheme: o.colorScheme ?? 'light',
        baseURL: url,
      });
      contexts.push(context);
      return context.newPage();
    },
    async call(method, target, body) {
      const response = await fetch(`${url}${target}`, {
        method,
        headers: { 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}

/** No serious or critical axe violation on the page as it stands. */
export async function expectNoSeriousAxeViolations(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}

/** Whether the page scrolls sideways (it must not, from a phone up). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}
