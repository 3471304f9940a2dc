import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { createRun, fakeTime, runStatus, templateWithRoute } from './workflow-support';

const pricesFile = path.join(os.tmpdir(), `prices-${process.pid}-${Date.now()}.json`);
// Registered before the app's own hook, so the price file exists when the app reads it.
beforeAll(() =>
  writeFile(pricesFile, JSON.stringify({ 'model-a': { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3 } })),
);
const app = useTestApp({ env: { MODEL_PRICES_FILE: pricesFile } });
let type: string;

beforeAll(async () => {
  fakeTime(app, '2026-11-20T12:00:00.000Z');
  type = await templateWithRoute(app, { agent: 'writer' });
});

describe('usage reported without a cost is priced from MODEL_PRICES_FILE', () => {
  it('prices tokens of a listed model through PATCH /api/workflow-runs/:id, cached input at its own rate, never twice', async () => {
    const run = await createRun(app, type);
    const res = await app.call('PATCH', `/api/workflow-runs/${run.id}`, {
      body: { model_id: 'model-a', input_tokens: 2_000_000, cached_tokens: 1_000_000, output_tokens: 100_000 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // 1M uncached x 3 + 1M cached x 0.3 + 0.1M x 15 = 4.8
    expect(await runStatus(app, run.id)).toMatchObject({
      cost_estimate: 4.8,
      currency: 'USD',
      reported_at: new Date('2026-11-20T12:00:00Z'),
    });
    const summary = await app.call('GET', '/api/costs/summary?days=1');
    expect(summary.body.total_window).toBe(4.8);
  });

  it('keeps a reported cost as given, and leaves an unlisted model unpriced (null, never a guess)', async () => {
    const given = await createRun(app, type);
    await app.call('PATCH', `/api/workflow-runs/${given.id}`, {
      body: { model_id: 'model-a', input_tokens: 1_000_000, cost_estimate: 0.5 },
    });
    expect(await runStatus(app, given.id)).toMatchObject({ cost_estimate: 0.5 });
    const unknown = await createRun(app, type);
    const res = await app.call('PATCH', `/api/workflow-runs/${unknown.id}`, { body: { model_id: 'model-z', input_tokens: 1_000_000 } });
    expect(res.status).toBe(200);
    expect(await runStatus(app, unknown.id)).toMatchObject({ cost_estimate: null, input_tokens: 1_000_000 });
  });
});
