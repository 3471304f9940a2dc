import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

async function counts() {
  const { rows } = await app.db.query<{ runs: number; snapshots: number }>(
    `SELECT (SELECT count(*)::int FROM workflow_runs) AS runs, (SELECT count(*)::int FROM entity_snapshots) AS snapshots`,
  );
  return rows[0];
}

describe('instrumentation', () => {
  it('appends one audit row per workflow graph event with actor dashboard-operator, touching no workflow state', async () => {
    const before = await counts();
    const open = await app.call('POST', '/api/workflow-graph/events', {
      body: { kind: 'open', workflow_ref: 'blog-post', mode: 'template' },
    });
    expect(open.status).toBe(201);
    const feedback = await app.call('POST', '/api/workflow-graph/events', { body: { kind: 'feedback', verdict: 'up', note: 'clear' } });
    expect(feedback.status).toBe(201);
    const { rows } = await app.db.query(`SELECT actor, action, new_value FROM audit_log WHERE action LIKE 'workflow-graph-%' ORDER BY id`);
    expect(rows).toEqual([
      {
        actor: 'dashboard-operator',
        action: 'workflow-graph-open',
        new_value: { kind: 'open', workflow_ref: 'blog-post', mode: 'template' },
      },
      { actor: 'dashboard-operator', action: 'workflow-graph-feedback', new_value: { kind: 'feedback', verdict: 'up', note: 'clear' } },
    ]);
    expect(await counts()).toEqual(before);
    for (const body of [
      {},
      { kind: 'close' },
      { kind: 'open', mode: 'x' },
      { kind: 'feedback', verdict: 'meh' },
      { kind: 'open', verdict: 'up' },
    ]) {
      expect((await app.call('POST', '/api/workflow-graph/events', { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('records MCP telemetry as mcp-tool-call audit rows and refuses bad bodies', async () => {
    const res = await app.http('POST', '/api/mcp/telemetry', { body: { tool: 'list_tasks', outcome: 'ok', durationMs: 12.5 } });
    expect(res.status).toBe(201);
    const { rows } = await app.db.query(`SELECT action, entity_id, new_value FROM audit_log WHERE action = 'mcp-tool-call'`);
    expect(rows).toEqual([
      { action: 'mcp-tool-call', entity_id: 'list_tasks', new_value: { tool: 'list_tasks', outcome: 'ok', durationMs: 12.5 } },
    ]);
    for (const body of [
      { tool: 'x', outcome: 'maybe', durationMs: 1 },
      { tool: 'x', outcome: 'ok', durationMs: -1 },
      { outcome: 'ok', durationMs: 1 },
    ]) {
      expect((await app.call('POST', '/api/mcp/telemetry', { body })).status).toBe(400);
    }
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        expect((await app.call('POST', '/api/mcp/telemetry', { body })).status).toBeLessThan(500);
        expect((await app.call('POST', '/api/workflow-graph/events', { body })).status).toBeLessThan(500);
      }),
      { numRuns: 30 },
    );
  });

  it('applies the go/no-go usage rule to the audit rows of the window', async () => {
    const insert = (action: string, day: string, verdict?: string) =>
      app.db.query(
        `INSERT INTO audit_log (timestamp, actor, action, entity_type, new_value) VALUES ($1, 'dashboard-operator', $2, 'workflow_graph', $3)`,
        [
          `${day}T10:00:00Z`,
          action,
          JSON.stringify({ kind: action.endsWith('open') ? 'open' : 'feedback', ...(verdict ? { verdict } : {}) }),
        ],
      );
    const decide = async () => (await app.call('GET', '/api/workflow-graph/usage-decision')).body;
    expect(await decide()).toMatchObject({ decision: 'no-go', render_days: 0, positive_feedback: 0 });
    for (let d = 25; d <= 31; d++) await insert('workflow-graph-open', `2026-08-${d}`);
    await insert('workflow-graph-open', '2026-08-25');
    await insert('workflow-graph-open', '2026-09-20');
    expect(await decide()).toMatchObject({ decision: 'middle', render_days: 7 });
    await insert('workflow-graph-open', '2026-09-01');
    for (let i = 0; i < 2; i++) await insert('workflow-graph-feedback', '2026-09-02', 'up');
    await insert('workflow-graph-feedback', '2026-09-02', 'down');
    expect(await decide()).toMatchObject({ decision: 'middle', render_days: 8, positive_feedback: 2 });
    await insert('workflow-graph-feedback', '2026-09-03', 'up');
    expect(await decide()).toMatchObject({ decision: 'go', render_days: 8, positive_feedback: 3 });
    expect((await app.call('GET', '/api/workflow-graph/usage-decision?start=nope')).status).toBe(400);
  });
});
