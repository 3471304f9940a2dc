import { beforeAll, describe, expect, it } from 'vitest';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
const NOW = '2026-11-20T15:00:00.000Z';

interface RunSeed {
  type?: string;
  agent?: string | null;
  target?: string | null;
  cost?: number | null;
  input?: number | null;
  output?: number | null;
  cached?: number | null;
  reported?: string | null;
  started?: string | null;
  created?: string;
  status?: string;
}

async function seedRun(run: RunSeed): Promise<string> {
  const { rows } = await app.db.query<{ id: string }>(
    `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, target_agent_id, status, cost_estimate, input_tokens, output_tokens,
                                cached_tokens, reported_at, started_at, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
    [
      run.type ?? 'research',
      run.agent === undefined ? 'agent-a' : run.agent,
      run.target ?? null,
      run.status ?? 'completed',
      run.cost === undefined ? 1 : run.cost,
      run.input ?? 100,
      run.output ?? 10,
      run.cached ?? null,
      run.reported === undefined ? NOW : run.reported,
      run.started ?? null,
      run.created ?? NOW,
    ],
  );
  return rows[0]!.id;
}

beforeAll(async () => {
  app.ctx.deps.clock = movableClock(NOW);
  await app.db.query(`INSERT INTO departments (id, name) VALUES ('research', 'Research')`);
  await app.db.query(`INSERT INTO agent_profiles (agent_id, department_id) VALUES ('agent-a', 'research'), ('agent-b', NULL)`);
  await seedRun({ agent: 'agent-a', cost: 2.5, input: 1000, output: 200, cached: 900 });
  await seedRun({ agent: 'agent-b', cost: 4, type: 'writing', reported: '2026-11-19T23:59:59.999Z' });
  // no reported_at: bucketed by started_at (yesterday), not created_at (today)
  await seedRun({ agent: 'agent-c', cost: 1, reported: null, started: '2026-11-19T01:00:00Z', created: NOW });
  // neither reported nor started: created_at
  await seedRun({ agent: null, target: null, cost: null, reported: null, created: '2026-11-18T12:00:00Z' });
  // outside a 7-day window, inside a 30-day one
  await seedRun({ agent: 'agent-a', cost: 100, reported: '2026-11-10T00:00:00Z' });
  // just outside the window edge of days=1 (yesterday's last instant is covered above), and in the future day
  await seedRun({ agent: 'agent-a', cost: 7, reported: '2026-11-21T00:00:00Z' });
});

describe('GET /api/costs/summary', () => {
  it('lists every UTC day of the window ascending, bucketing by reported_at, then started_at, then created_at', async () => {
    const res = await app.call('GET', '/api/costs/summary');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ available: true, window_days: 7, currency: 'USD', timestamp: NOW });
    expect(res.body.days.map((d: { date: string }) => d.date)).toEqual([
      '2026-11-14',
      '2026-11-15',
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
    ]);
    const byDate = Object.fromEntries(res.body.days.map((d: { date: string }) => [d.date, d]));
    expect(byDate['2026-11-20']).toEqual({ date: '2026-11-20', cost: 2.5, runs: 1, tokens: { input: 1000, output: 200 } });
    expect(byDate['2026-11-19']).toMatchObject({ cost: 5, runs: 2 });
    expect(byDate['2026-11-18']).toMatchObject({ cost: 0, runs: 1 });
    expect(byDate['2026-11-14']).toEqual({ date: '2026-11-14', cost: 0, runs: 0, tokens: { input: 0, output: 0 } });
    expect(res.body.today).toEqual({ cost: 2.5, tokens: { input: 1000, output: 200 }, runs: 1 });
    expect(res.body.total_window).toBe(7.5);
    expect(res.body.avg_daily_7d).toBeCloseTo(7.5 / 7, 6);
    expect(res.body.top_run).toMatchObject({ workflow_type: 'writing', owner_agent_id: 'agent-b', status: 'completed', cost: 4 });
  });

  it('clamps days to 1..90 and refuses a non-number with 400 validation_failed', async () => {
    const one = await app.call('GET', '/api/costs/summary?days=0');
    expect(one.body.window_days).toBe(1);
    expect(one.body.days).toHaveLength(1);
    expect(one.body.total_window).toBe(2.5);
    const many = await app.call('GET', '/api/costs/summary?days=1000');
    expect(many.body.window_days).toBe(90);
    expect(many.body.days).toHaveLength(90);
    expect(many.body.total_window).toBe(107.5);
    expect(many.body.top_run.cost).toBe(100);
    const negative = await app.call('GET', '/api/costs/summary?days=-5');
    expect(negative.body.window_days).toBe(1);
    const bad = await app.call('GET', '/api/costs/summary?days=week');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_failed');
    expect(bad.body.details[0].path).toBe('days');
  });

  it('answers top_run null and zero totals over an empty window', async () => {
    app.ctx.deps.clock = movableClock('2027-06-01T00:00:00Z');
    try {
      const res = await app.call('GET', '/api/costs/summary?days=3');
      expect(res.body).toMatchObject({ available: true, total_window: 0, avg_daily_7d: 0, top_run: null });
    } finally {
      app.ctx.deps.clock = movableClock(NOW);
    }
  });
});

describe('GET /api/costs/rollup', () => {
  it('groups by agent by default, cost descending, each series date ascending with only days that had runs', async () => {
    const res = await app.call('GET', '/api/costs/rollup?days=30');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      available: true,
      group_by: 'agent',
      window_days: 30,
      currency: 'USD',
      group_count: 4,
      total_window: 107.5,
    });
    expect(res.body.groups.map((g: { key: string }) => g.key)).toEqual(['agent-a', 'agent-b', 'agent-c', 'Unassigned']);
    expect(res.body.groups[0]).toEqual({
      key: 'agent-a',
      cost: 102.5,
      runs: 2,
      tokens: { input: 1100, output: 210 },
      series: [
        { date: '2026-11-10', cost: 100 },
        { date: '2026-11-20', cost: 2.5 },
      ],
    });
    expect(res.body.groups[3]).toMatchObject({ key: 'Unassigned', cost: 0, runs: 1 });
  });

  it('groups by department through the agent profile; unmapped agents land in Unassigned', async () => {
    const res = await app.call('GET', '/api/costs/rollup?group_by=department&days=7');
    expect(res.body.groups).toEqual([
      {
        key: 'Unassigned',
        cost: 5,
        runs: 3,
        tokens: { input: 300, output: 30 },
        series: [
          { date: '2026-11-18', cost: 0 },
          { date: '2026-11-19', cost: 5 },
        ],
      },
      { key: 'research', cost: 2.5, runs: 1, tokens: { input: 1000, output: 200 }, series: [{ date: '2026-11-20', cost: 2.5 }] },
    ]);
  });

  it('groups by workflow_type', async () => {
    const res = await app.call('GET', '/api/costs/rollup?group_by=workflow_type&days=7');
    expect(res.body.groups.map((g: { key: string; cost: number }) => [g.key, g.cost])).toEqual([
      ['writing', 4],
      ['research', 3.5],
    ]);
  });

  it("groups by project through the run's task; runs without a task land in Unassigned", async () => {
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'Rolled up') RETURNING id`,
    );
    const { rows: tasks } = await app.db.query<{ id: string }>(
      `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 't') RETURNING id`,
      [rows[0]!.id],
    );
    const run = await seedRun({ agent: 'agent-b', cost: 0.75 });
    await app.db.query('UPDATE workflow_runs SET task_id = $1 WHERE id = $2', [tasks[0]!.id, run]);
    try {
      const res = await app.call('GET', '/api/costs/rollup?group_by=project&days=1');
      expect(res.status).toBe(200);
      expect(res.body.groups).toEqual([
        { key: 'Unassigned', cost: 2.5, runs: 1, tokens: { input: 1000, output: 200 }, series: [{ date: '2026-11-20', cost: 2.5 }] },
        { key: rows[0]!.id, cost: 0.75, runs: 1, tokens: { input: 100, output: 10 }, series: [{ date: '2026-11-20', cost: 0.75 }] },
      ]);
    } finally {
      await app.db.query('DELETE FROM workflow_runs WHERE id = $1', [run]);
    }
  });

  it("groups by model from the window's runs (the rollup keeps no model), unpriced runs counted apart", async () => {
    const priced = await seedRun({ agent: 'agent-b', cost: 0.5 });
    const unpriced = await seedRun({ agent: 'agent-b', cost: null, input: 30, output: 3 });
    await app.db.query(`UPDATE workflow_runs SET model_id = 'model-x' WHERE id = ANY($1::uuid[])`, [[priced, unpriced]]);
    try {
      const res = await app.call('GET', '/api/costs/rollup?group_by=model&days=1');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ group_by: 'model', total_window: 3, unpriced_runs: 1, unpriced_tokens: { input: 30, output: 3 } });
      expect(res.body.groups).toEqual([
        { key: 'Unassigned', cost: 2.5, runs: 1, tokens: { input: 1000, output: 200 }, series: [{ date: '2026-11-20', cost: 2.5 }] },
        { key: 'model-x', cost: 0.5, runs: 2, tokens: { input: 130, output: 13 }, series: [{ date: '2026-11-20', cost: 0.5 }] },
      ]);
    } finally {
      await app.db.query('DELETE FROM workflow_runs WHERE id = ANY($1::uuid[])', [[priced, unpriced]]);
    }
  });

  it('refuses an unknown group_by with 400 validation_failed naming the legal values', async () => {
    const res = await app.call('GET', '/api/costs/rollup?group_by=colour');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details[0]).toMatchObject({ path: 'group_by' });
    expect(res.body.details[0].message).toMatch(/agent, department, workflow_type/);
  });

  it('answers over real HTTP too', async () => {
    const res = await app.http('GET', '/api/costs/rollup?group_by=workflow_type&days=1');
    expect(res.status).toBe(200);
    expect(res.body.groups).toEqual([
      { key: 'research', cost: 2.5, runs: 1, tokens: { input: 1000, output: 200 }, series: [{ date: '2026-11-20', cost: 2.5 }] },
    ]);
  });
});

describe('cost reads when a query fails', () => {
  it('answers 200 {available: false, reason: query_failed}', async () => {
    // the reads go to the runs and to the usage rollup: both away
    await app.db.query('ALTER TABLE workflow_runs RENAME TO workflow_runs_away');
    await app.db.query('ALTER TABLE run_usage_daily RENAME TO run_usage_daily_away');
    try {
      const summary = await app.call('GET', '/api/costs/summary');
      expect(summary.status).toBe(200);
      expect(summary.body).toMatchObject({ available: false, reason: 'query_failed', window_days: 7 });
      const rollup = await app.call('GET', '/api/costs/rollup');
      expect(rollup.body).toMatchObject({ available: false, reason: 'query_failed' });
    } finally {
      await app.db.query('ALTER TABLE workflow_runs_away RENAME TO workflow_runs');
      await app.db.query('ALTER TABLE run_usage_daily_away RENAME TO run_usage_daily');
    }
  });
});

describe('unpriced usage', () => {
  it('answers runs with tokens but no cost as unpriced beside the totals, never a run with a cost or without tokens', async () => {
    // the seeded run of 2026-11-18 has 100 input and 10 output tokens and no cost
    const summary = await app.call('GET', '/api/costs/summary');
    expect(summary.body).toMatchObject({ unpriced_runs: 1, unpriced_tokens: { input: 100, output: 10 } });
    const idle = await seedRun({ cost: null, input: 0, output: 0 });
    const more = await seedRun({ agent: 'agent-b', cost: null, input: 40, output: 4 });
    try {
      const again = await app.call('GET', '/api/costs/summary');
      expect(again.body).toMatchObject({ unpriced_runs: 2, unpriced_tokens: { input: 140, output: 14 }, total_window: 7.5 });
      const rollup = await app.call('GET', '/api/costs/rollup?group_by=workflow_type');
      expect(rollup.body).toMatchObject({ unpriced_runs: 2, unpriced_tokens: { input: 140, output: 14 } });
      // the unpriced runs themselves, newest first, so the console can link to each
      const { rows: seeded } = await app.db.query<{ id: string }>(
        `SELECT id FROM workflow_runs WHERE cost_estimate IS NULL AND created_at = '2026-11-18T12:00:00Z'`,
      );
      expect(rollup.body.unpriced_run_list.map((r: { id: string }) => r.id)).toEqual([more, seeded[0]!.id]);
      expect(rollup.body.unpriced_run_list[0]).toMatchObject({
        workflow_type: 'research',
        agent_id: 'agent-b',
        input_tokens: 40,
        output_tokens: 4,
      });
      const priced = await app.call('GET', '/api/costs/rollup?days=1&group_by=agent');
      expect(priced.body.unpriced_run_list.map((r: { id: string }) => r.id)).toEqual([more]);
      const narrow = await app.call('GET', '/api/costs/summary?days=1');
      expect(narrow.body).toMatchObject({ unpriced_runs: 1, unpriced_tokens: { input: 40, output: 4 } });
    } finally {
      await app.db.query('DELETE FROM workflow_runs WHERE id = ANY($1::uuid[])', [[idle, more]]);
    }
  });
});
