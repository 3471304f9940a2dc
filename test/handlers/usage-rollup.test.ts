import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAgentSql, usageAtSql } from '../../core/costs/usage';
import { createRun, templateWithRoute, tick, useWorkflowApp } from './workflow-support';

/**
 * The usage rollup is a cache of run usage that always equals the raw aggregate over the
 * runs (the attribution of core/costs/usage.ts), whatever writes the runs and tasks go through.
 */
const app = useWorkflowApp();
let types: string[] = [];
let projects: string[] = [];
const tasks: string[] = [];

beforeAll(async () => {
  types = [await templateWithRoute(app, { agent: 'writer' }), await templateWithRoute(app, { agent: 'editor' })];
  for (const name of ['rollup-a', 'rollup-b']) {
    const res = await app.call('POST', '/api/projects', { body: { name: `${name}-${Date.now()}` } });
    projects.push(res.body.id as string);
  }
});

/** The raw aggregate per key, and the rollup's (folded rows and deltas), as comparable text. */
async function both(): Promise<{ raw: string[]; rollup: string[] }> {
  const measures = `runs, round(cost::numeric, 6) AS cost, input, output, unpriced_runs, unpriced_input, unpriced_output`;
  const cols =
    'day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output';
  const { rows: raw } = await app.db.query<Record<string, unknown>>(
    `SELECT day::text, agent, project, workflow_type, billing, ${measures} FROM (
       SELECT (${usageAtSql} AT TIME ZONE 'UTC')::date AS day, coalesce(${runAgentSql}, '') AS agent, coalesce(t.project_id::text, '') AS project,
              r.workflow_type, CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing,
              count(*) AS runs, coalesce(sum(r.cost_estimate::numeric), 0) AS cost,
              coalesce(sum(r.input_tokens), 0) AS input, coalesce(sum(r.output_tokens), 0) AS output,
              count(*) FILTER (WHERE r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0) AS unpriced_runs,
              coalesce(sum(r.input_tokens) FILTER (WHERE r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0), 0) AS unpriced_input,
              coalesce(sum(r.output_tokens) FILTER (WHERE r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0), 0) AS unpriced_output
         FROM workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id GROUP BY 1, 2, 3, 4, 5) x`,
  );
  const { rows: rollup } = await app.db.query<Record<string, unknown>>(
    `SELECT day::text, agent_id AS agent, project_id AS project, workflow_type, billing, ${measures} FROM (
       SELECT day, agent_id, project_id, workflow_type, billing, sum(runs) AS runs, sum(cost) AS cost, sum(input_tokens) AS input,
              sum(output_tokens) AS output, sum(unpriced_runs) AS unpriced_runs, sum(unpriced_input) AS unpriced_input, sum(unpriced_output) AS unpriced_output
         FROM (SELECT ${cols} FROM run_usage_daily UNION ALL SELECT ${cols} FROM run_usage_delta) u
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(runs) <> 0) x`,
  );
  const text = (rows: Array<Record<string, unknown>>) => rows.map((r) => JSON.stringify(Object.values(r).map(String))).sort();
  return { raw: text(raw), rollup: text(rollup) };
}

type Step =
  | { kind: 'create'; type: number; task: number | null }
  | { kind: 'usage'; run: number; tokens: number; cost: number | null; backdays: number }
  | { kind: 'tick' }
  | { kind: 'moveTask'; task: number; project: number }
  | { kind: 'deleteTask'; task: number }
  | { kind: 'deleteRun'; run: number }
  | { kind: 'subscribe'; on: boolean }
  | { kind: 'rebuild' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), type: fc.nat(1), task: fc.option(fc.nat(3), { nil: null }) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('usage' as const),
      run: fc.nat(20),
      tokens: fc.nat(5000),
      cost: fc.option(
        fc.integer({ min: 0, max: 300 }).map((c) => c / 100),
        { nil: null },
      ),
      backdays: fc.nat(3),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('moveTask' as const), task: fc.nat(3), project: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteTask' as const), task: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRun' as const), run: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('subscribe' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rebuild' as const) }) },
);

async function newTask(project: string): Promise<string> {
  const res = await app.call('POST', '/api/tasks', { body: { project_id: project, title: 'rollup task' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('the usage rollup', () => {
  it('equals the raw aggregate over the runs after any mix of run and task writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 25 }), async (steps) => {
        const runs: string[] = [];
        while (tasks.length < 4) tasks.push(await newTask(projects[tasks.length % 2]!));
        for (const step of steps) {
          if (step.kind === 'create') {
            const task = step.task === null ? null : (tasks[step.task] ?? null);
            runs.push((await createRun(app, types[step.type]!, task ? { task_id: task } : {})).id);
          } else if (step.kind === 'usage' && runs.length > 0) {
            const id = runs[step.run % runs.length]!;
            const reportedAt = new Date(Date.parse('2026-11-01T12:00:00Z') - step.backdays * 86_400_000).toISOString();
            const body: Record<string, unknown> = {
              input_tokens: step.tokens,
              output_tokens: Math.floor(step.tokens / 3),
              model_id: 'unpriced-model',
              reported_at: reportedAt,
            };
            if (step.cost !== null) body.cost_estimate = step.cost;
            const res = await app.call('PATCH', `/api/workflow-runs/${id}`, { body });
            expect([200, 404]).toContain(res.status);
          } else if (step.kind === 'tick') {
            await tick(app);
          } else if (step.kind === 'moveTask') {
            const res = await app.call('PATCH', `/api/tasks/${tasks[step.task]}`, { body: { project_id: projects[step.project] } });
            expect([200, 404]).toContain(res.status);
          } else if (step.kind === 'deleteTask') {
            // a hard delete (legacy import replace, a project's soft-deleted tasks): the runs lose their task
            await app.db.query('DELETE FROM tasks WHERE id = $1', [tasks[step.task]]);
            tasks[step.task] = await newTask(projects[step.task % 2]!);
          } else if (step.kind === 'deleteRun' && runs.length > 0) {
            await app.db.query('DELETE FROM workflow_runs WHERE id = $1', [runs[step.run % runs.length]]);
          } else if (step.kind === 'subscribe') {
            await app.call('PUT', '/api/agents/writer/billing', { body: { billing: step.on ? 'subscription' : null } });
          } else if (step.kind === 'rebuild') {
            expect((await app.call('POST', '/api/costs/rebuild')).status).toBe(200);
          }
        }
        const { raw, rollup } = await both();
        expect(rollup).toEqual(raw);
      }),
      { numRuns: 25 },
    );
  });

  it('is recomputed from the runs by POST /api/costs/rebuild, audited', async () => {
    await createRun(app, types[0]!);
    await app.db.query('SELECT run_usage_compact()');
    await app.db.query('UPDATE run_usage_daily SET runs = runs + 7, cost = cost + 1');
    const drifted = await both();
    expect(drifted.rollup).not.toEqual(drifted.raw);
    const res = await app.call('POST', '/api/costs/rebuild', { body: { actor: 'ops-rollup' } });
    expect(res.status).toBe(200);
    expect(res.body.rows).toBeGreaterThan(0);
    const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_runs');
    expect(res.body.runs).toBe(rows[0]!.n);
    const again = await both();
    expect(again.rollup).toEqual(again.raw);
    const audit = await app.db.query<{ actor: string }>(
      `SELECT actor FROM audit_log WHERE entity_type = 'usage_rollup' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit.rows[0]).toEqual({ actor: 'ops-rollup' });
    const bad = await app.call('POST', '/api/costs/rebuild', { body: { everything: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/everything/);
  });

  it('folds its deltas at each tick, and answers the same before and after', async () => {
    await createRun(app, types[1]!);
    const before = (await app.call('GET', '/api/costs/summary?days=30')).body;
    const { rows: pending } = await app.db.query<{ last: number }>('SELECT coalesce(max(id), 0)::int8 AS last FROM run_usage_delta');
    expect(pending[0]!.last).toBeGreaterThan(0);
    await tick(app);
    // what was there when the tick began is folded (the tick's own writes leave deltas for the next one)
    const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM run_usage_delta WHERE id <= $1', [pending[0]!.last]);
    expect(rows[0]!.n).toBe(0);
    const after = (await app.call('GET', '/api/costs/summary?days=30')).body;
    expect(after.days).toEqual(before.days);
    expect(after.total_window).toBe(before.total_window);
  });
});
