import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../infra/app-context';
import { startFallbackContext } from '../support/fallback-context';
import { useTestApp } from '../support/use-app';

/** Costs, budgets and actions while the configured database is unreachable (read-only fallback mode). */
const app = useTestApp();
let fallbackCtx: AppContext;
let taskId: string;
let budgetId: string;

async function writes(): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM action_receipts) + (SELECT count(*) FROM budgets) + (SELECT count(*) FROM audit_log) + (SELECT count(*) FROM event_outbox) AS n`,
  );
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  const project = await app.call('POST', '/api/projects', { body: { name: 'p' } });
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 't') RETURNING id`,
    [project.body.id],
  );
  taskId = rows[0]!.id;
  const budget = await app.call('POST', '/api/budgets', {
    body: { name: 'b', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' },
  });
  budgetId = budget.body.budget.id;
  fallbackCtx = await startFallbackContext(app, { reconnectIntervalMs: 60_000 });
});
afterAll(async () => {
  await fallbackCtx?.close();
});

describe('without a database', () => {
  it('cost reads answer 200 {available: false, reason: no_database} with the window and a timestamp', async () => {
    const summary = await app.http('GET', '/api/costs/summary?days=30');
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual({ available: false, reason: 'no_database', window_days: 30, timestamp: expect.any(String) });
    const rollup = await app.http('GET', '/api/costs/rollup?group_by=department');
    expect(rollup.status).toBe(200);
    expect(rollup.body).toMatchObject({ available: false, reason: 'no_database' });
  });

  it('every budget endpoint answers 200 {available: false, reason: no_database} and writes nothing', async () => {
    const before = await writes();
    for (const [method, path, body] of [
      ['GET', '/api/budgets'],
      ['POST', '/api/budgets', { name: 'n', scope: 'fleet', period: 'daily', cap_usd: 1, action_on_exceed: 'warn' }],
      ['PATCH', `/api/budgets/${budgetId}`, { name: 'renamed' }],
      ['GET', `/api/budgets/${budgetId}/ledger`],
    ] as const) {
      const res = await app.http(method, path, body ? { body } : {});
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(res.body).toEqual({ available: false, reason: 'no_database' });
    }
    expect(await writes()).toBe(before);
  });

  it('execute refuses with 503 {available: false, reason: no_database} and zero writes; recent degrades to 200', async () => {
    const before = await writes();
    const res = await app.http('POST', '/api/actions/execute', {
      body: { actionId: randomUUID(), kind: 'task.assign', targetId: taskId, params: { owner: 'x' } },
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ available: false, reason: 'no_database' });
    expect(await writes()).toBe(before);
    const recent = await app.http('GET', '/api/actions/recent');
    expect(recent.status).toBe(200);
    expect(recent.body).toEqual({ available: false, reason: 'no_database' });
    // the envelope is still checked first, and the catalog needs no database
    const invalid = await app.http('POST', '/api/actions/execute', { body: { kind: 'task.assign' } });
    expect(invalid.status).toBe(400);
    expect((await app.http('GET', '/api/actions/catalog')).status).toBe(200);
  });
});
