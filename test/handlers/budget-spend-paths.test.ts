import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { periodWindow } from '../../core/budgets/periods';
import type { BudgetPeriod } from '../../core/budgets/budget';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

/**
 * Spend is summed two ways (spend.ts): grouped by the budgets each run counts in, for a few budgets,
 * and reduced by day, agent and project, for many. Both must agree with each other and with a
 * plain reference over random runs.
 */
const app = useTestApp();
const projects: string[] = [];
const tasks: Array<{ id: string; project: string }> = [];
const NOW = new Date('2026-11-20T12:00:00Z');
const DEPARTMENT_OF: Record<string, string> = { 'ops-1': 'ops', 'ops-2': 'ops', 'dev-1': 'dev' };
const AGENTS = ['ops-1', 'ops-2', 'dev-1', 'loner'];
const PERIODS: BudgetPeriod[] = ['daily', 'weekly', 'monthly'];

beforeAll(async () => {
  app.ctx.deps.clock = movableClock(NOW.toISOString());
  for (const name of ['Alpha', 'Beta']) {
    const project = (await app.call('POST', '/api/projects', { body: { name } })).body.id as string;
    projects.push(project);
    const { rows } = await app.db.query<{ id: string }>(
      `INSERT INTO tasks (id, project_id, title) VALUES (gen_random_uuid(), $1, 't') RETURNING id`,
      [project],
    );
    tasks.push({ id: rows[0]!.id, project });
  }
  await app.db.query(`INSERT INTO departments (id, name) VALUES ('ops', 'Operations'), ('dev', 'Development')`);
  await app.db.query(`INSERT INTO agent_profiles (agent_id, department_id) VALUES ('ops-1', 'ops'), ('ops-2', 'ops'), ('dev-1', 'dev')`);
});

interface SeedRun {
  agent: string | null;
  task: number | null;
  cents: number | null;
  input: number;
  output: number;
  /** Hours before NOW: 0 to 45 days back, so every period boundary gets runs on both sides. */
  hoursAgo: number;
}

const runArb = fc.record({
  agent: fc.option(fc.constantFrom(...AGENTS), { nil: null }),
  task: fc.option(fc.integer({ min: 0, max: 1 }), { nil: null }),
  cents: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
  input: fc.integer({ min: 0, max: 10_000 }),
  output: fc.integer({ min: 0, max: 10_000 }),
  hoursAgo: fc.integer({ min: 0, max: 45 * 24 }),
});

interface BudgetSpec {
  name: string;
  scope: 'fleet' | 'agent' | 'department' | 'project';
  scope_id?: string;
  period: BudgetPeriod;
}

function everyBudget(): BudgetSpec[] {
  const specs: BudgetSpec[] = [];
  for (const period of PERIODS) {
    specs.push({ name: `fleet ${period}`, scope: 'fleet', period });
    for (const dept of ['ops', 'dev']) specs.push({ name: `${dept} ${period}`, scope: 'department', scope_id: dept, period });
    for (const [i, project] of projects.entries())
      specs.push({ name: `project${i} ${period}`, scope: 'project', scope_id: project, period });
    for (const agent of AGENTS) specs.push({ name: `${agent} ${period}`, scope: 'agent', scope_id: agent, period });
  }
  return specs;
}

function reference(spec: BudgetSpec, runs: SeedRun[]): { usd: number; tokens: number; runs: number; unpriced_runs: number } {
  const window = periodWindow(spec.period, NOW);
  let cents = 0;
  let tokens = 0;
  let count = 0;
  let unpriced = 0;
  for (const run of runs) {
    const at = NOW.getTime() - run.hoursAgo * 3_600_000;
    if (at < window.start.getTime() || at >= window.end.getTime()) continue;
    const counts =
      spec.scope === 'fleet' ||
      (spec.scope === 'agent' && run.agent === spec.scope_id) ||
      (spec.scope === 'department' && run.agent !== null && DEPARTMENT_OF[run.agent] === spec.scope_id) ||
      (spec.scope === 'project' && run.task !== null && tasks[run.task]!.project === spec.scope_id);
    if (!counts) continue;
    cents += run.cents ?? 0;
    tokens += run.input + run.output;
    count++;
    // tokens without a cost are unpriced, never free
    if (run.cents === null && run.input + run.output > 0) unpriced++;
  }
  return { usd: cents / 100, tokens, runs: count, unpriced_runs: unpriced };
}

describe('budget spend', () => {
  it(
    'is the same grouped for many budgets, grouped for a few, for one budget alone, and by a plain reference',
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(runArb, { maxLength: 40 }), async (runs) => {
          await app.db.query('DELETE FROM budget_events');
          await app.db.query('DELETE FROM budgets');
          await app.db.query('DELETE FROM workflow_runs');
          if (runs.length) {
            await app.db.query(
              `INSERT INTO workflow_runs (id, workflow_type, owner_agent_id, task_id, status, cost_estimate, input_tokens, output_tokens, reported_at)
             SELECT gen_random_uuid(), 'research', r.agent, r.task, 'completed', r.cents / 100.0, r.input, r.output, $2::timestamptz - r.hours * interval '1 hour'
               FROM jsonb_to_recordset($1::jsonb) AS r(agent text, task uuid, cents int, input int, output int, hours int)`,
              [
                JSON.stringify(
                  runs.map((r) => ({
                    agent: r.agent,
                    task: r.task === null ? null : tasks[r.task]!.id,
                    cents: r.cents,
                    input: r.input,
                    output: r.output,
                    hours: r.hoursAgo,
                  })),
                ),
                NOW,
              ],
            );
          }
          const specs = everyBudget();
          for (const spec of specs) {
            const created = await app.call('POST', '/api/budgets', { body: { ...spec, cap_usd: 1_000_000, action_on_exceed: 'warn' } });
            expect(created.status, JSON.stringify(created.body)).toBe(201);
          }
          const many = (await app.call('GET', '/api/budgets')).body.budgets as Array<{ id: string; name: string; current_spend: unknown }>;
          expect(many.length).toBeGreaterThan(16);
          for (const budget of many) {
            const spec = specs.find((s) => s.name === budget.name)!;
            expect(budget.current_spend, `${budget.name} (many)`).toEqual(reference(spec, runs));
            const alone = await app.call('GET', `/api/budgets/${budget.id}/ledger`);
            expect(alone.body.spend, `${budget.name} (alone)`).toEqual(budget.current_spend);
          }
          // a dispatch chain's worth of budgets: the grouped path for a few
          await app.db.query(
            `DELETE FROM budgets WHERE name NOT IN ('fleet monthly', 'ops weekly', 'project0 monthly', 'ops-1 daily', 'ops-1 monthly', 'dev-1 weekly', 'loner daily')`,
          );
          const few = (await app.call('GET', '/api/budgets')).body.budgets as Array<{ name: string; current_spend: unknown }>;
          expect(few).toHaveLength(7);
          for (const budget of few) {
            const spec = specs.find((s) => s.name === budget.name)!;
            expect(budget.current_spend, `${budget.name} (few)`).toEqual(reference(spec, runs));
          }
        }),
        { numRuns: 25 },
      );
    },
  );
});
