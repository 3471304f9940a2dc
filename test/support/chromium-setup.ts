import type { TestProject } from 'vitest/node';

/**
 * The Chromium of the browser tests: CHROMIUM_PATH when set, else the one @sparticuz/chromium ships
 * inside its npm package (unpacked once here, before any test file runs, so that parallel files
 * never unpack it at the same time). Nothing is downloaded.
 */
export default async function setup(project: TestProject) {
  let executable = process.env.CHROMIUM_PATH;
  if (!executable) {
    const started = performance.now();
    const { default: chromium } = await import('@sparticuz/chromium');
    executable = await chromium.executablePath();
    const ms = Math.round(performance.now() - started);
    if (ms > 1000) process.stdout.write(`chromium: unpacked @sparticuz/chromium to ${executable} in ${ms} ms\n`);
  }
  project.provide('chromiumPath', executable);
}
