import { redactSecrets } from '../../core/secrets/redact';
import { canonicalJson } from '../../core/snapshots/canonical-json';
import { snapshotTables } from '../../core/snapshots/tables';
import type { PgDb } from '../../infra/db/pg-db';

/**
 * Rows in every captured table (tiers A to D), with their foreign keys satisfied, for snapshot and
 * restore tests and the bench. `tag` (lowercase letters and digits) keeps text keys apart between calls.
 */
export async function seedEveryTable(db: PgDb, n: number, tag: string): Promise<void> {
  const s = `generate_series(1, ${Math.floor(n)}) g`;
  const statements = [
    `INSERT INTO workflows (id, name, metadata) SELECT gen_random_uuid(), 'wf ${tag} ' || g, jsonb_build_object('n', g) FROM ${s}`,
    `INSERT INTO workspaces (id, name, slug, settings) SELECT gen_random_uuid(), 'ws ' || g, '${tag}-ws-' || g, '{"dense": true}' FROM ${s}`,
    `INSERT INTO projects (id, name, default_workflow_id, workspace_id, tags, metadata)
       SELECT gen_random_uuid(), 'p ${tag} ' || g, (SELECT id FROM workflows ORDER BY id LIMIT 1), (SELECT id FROM workspaces ORDER BY id LIMIT 1), ARRAY['a', 'b'], '{"k": [1, 2.5]}' FROM ${s}`,
    `INSERT INTO tasks (id, project_id, title, labels, estimated_effort, due_date, metadata)
       SELECT gen_random_uuid(), (SELECT id FROM projects ORDER BY id LIMIT 1), 't ${tag} ' || g, ARRAY['x'], 1.5, now() + interval '1 day', '{}' FROM ${s}`,
    `UPDATE tasks c SET parent_task_id = p.id FROM (SELECT id FROM tasks WHERE title = 't ${tag} 1') p WHERE c.title LIKE 't ${tag} %' AND c.id <> p.id AND c.title <> 't ${tag} 1'`,
    `INSERT INTO saved_views (id, project_id, name, filters) SELECT gen_random_uuid(), (SELECT id FROM projects ORDER BY id LIMIT 1), 'v' || g, '{"status": ["ready"]}' FROM ${s}`,
    `INSERT INTO departments (id, name, metadata) SELECT '${tag}-dept-' || g, 'Dept ' || g, '{}' FROM ${s}`,
    `INSERT INTO agent_profiles (agent_id, department_id, capabilities, metadata) SELECT '${tag}-agent-' || g, '${tag}-dept-1', ARRAY['write'], '{}' FROM ${s}`,
    `INSERT INTO workflow_templates (name, steps) SELECT '${tag}-tpl-' || g, '[{"name": "draft"}]' FROM ${s}`,
    `INSERT INTO workflow_agent_routing (workflow_type, agent_id, priority) SELECT '${tag}-type-' || g, '${tag}-agent-1', g FROM ${s}`,
    `INSERT INTO workflow_runs (id, workflow_type, status, task_id, input_payload, cost_estimate, input_tokens, metadata)
       SELECT gen_random_uuid(), '${tag}-type-1', 'completed', (SELECT id FROM tasks ORDER BY id LIMIT 1), '{"topic": "x"}', 0.125, 1000 + g, '{}' FROM ${s}`,
    `INSERT INTO workflow_steps (id, run_id, step_name, step_order, output)
       SELECT gen_random_uuid(), r.id, 'draft', 0, '{"ok": true}' FROM workflow_runs r WHERE r.workflow_type = '${tag}-type-1'`,
    `INSERT INTO workflow_approvals (id, workflow_run_id, step_name, metadata)
       SELECT gen_random_uuid(), r.id, 'review', '{}' FROM workflow_runs r WHERE r.workflow_type = '${tag}-type-1'`,
    `INSERT INTO workflow_artifacts (id, workflow_run_id, artifact_type, uri, metadata)
       SELECT gen_random_uuid(), r.id, 'url', 'https://example.test/' || r.id, '{}' FROM workflow_runs r WHERE r.workflow_type = '${tag}-type-1'`,
    `INSERT INTO budgets (id, name, scope, scope_id, period, cap_usd, action_on_exceed) SELECT gen_random_uuid(), 'b' || g, 'project', '${tag}-' || g, 'daily', 10, 'warn' FROM ${s}`,
    `INSERT INTO budget_events (budget_id, period_key, event_kind, detail) SELECT b.id, '2026-11-01', 'warned', '{"spend_usd": 11}' FROM budgets b WHERE b.scope_id LIKE '${tag}-%'`,
    `INSERT INTO action_receipts (action_id, kind, target_id, params_hash, actor, outcome, detail) SELECT gen_random_uuid(), 'task.assign', 't', 'h', 'dashboard-operator', 'executed', '{}' FROM ${s}`,
    `INSERT INTO audit_log (actor, action, entity_type, entity_id, new_value) SELECT 'seed', 'created', 'thing', '${tag}-' || g, '{"v": 1}' FROM ${s}`,
    `INSERT INTO service_catalog (id, name, metadata) SELECT gen_random_uuid(), 'svc ' || g, '{}' FROM ${s}`,
    `INSERT INTO service_requests (id, service_id, payload) SELECT gen_random_uuid(), (SELECT id FROM service_catalog ORDER BY id LIMIT 1), '{}' FROM ${s}`,
    `INSERT INTO department_daily_metrics (department_id, day, metrics) SELECT '${tag}-dept-1', date '2026-01-01' + g, '{"runs": 1}' FROM ${s}`,
    `INSERT INTO task_runs (id, task_id, agent, output) SELECT gen_random_uuid(), (SELECT id FROM tasks ORDER BY id LIMIT 1), 'a', '{}' FROM ${s}`,
    `INSERT INTO cron_job_runs (id, job_id, status, output) SELECT gen_random_uuid(), 'job-' || g, 'ok', '{}' FROM ${s}`,
    `INSERT INTO agent_heartbeats (agent_name, last_seen_at, status, metadata) SELECT '${tag}-agent-' || g, now(), 'online', '{}' FROM ${s}`,
    // agent safety's columns and tables: a lease and fencing token, caps, exclusivity, an error class, dispatch controls, idempotency keys
    `UPDATE tasks SET locked_by = '${tag}-agent-1', locked_at = now(), lease_expires_at = now() + interval '1 hour', lock_generation = 3 WHERE title = 't ${tag} 2'`,
    `UPDATE workflow_agent_routing SET max_concurrent = 2, exclusive_per_task = true WHERE workflow_type = '${tag}-type-1'`,
    `UPDATE workflow_templates SET exclusive_per_task = true WHERE name = '${tag}-tpl-1'`,
    `UPDATE workflow_runs SET error_class = 'rate_limited' WHERE workflow_type = '${tag}-type-1'`,
    `INSERT INTO agent_dispatch_controls (agent_id, max_concurrent_runs, dispatch_paused_until, pause_reason)
       SELECT '${tag}-agent-' || g, g, now() + interval '10 minutes', 'quota_exhausted: seeded' FROM ${s}`,
    `INSERT INTO run_idempotency_keys (idempotency_key, request_hash, run_id, expires_at)
       SELECT '${tag}-key-' || row_number() OVER (ORDER BY r.id), md5(r.id::text), r.id, now() + interval '1 day' FROM workflow_runs r WHERE r.workflow_type = '${tag}-type-1'`,
    `INSERT INTO chat_messages (id, session_key, role, content) SELECT gen_random_uuid(), 'agent:${tag}:main', CASE WHEN g % 2 = 0 THEN 'assistant' ELSE 'user' END, 'turn ' || g FROM ${s}`,
  ];
  for (const sql of statements) await db.query(sql);
}

/** Every captured table as a snapshot would carry it (redacted, canonical), ordered by primary key. */
export async function liveTables(db: PgDb): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const client = await db.pool.connect();
  try {
    await client.query(`SET TimeZone = 'UTC'`);
    // generated columns (tasks.json_segments) are derived: snapshots leave them out, as restore recomputes them
    const { rows: generated } = await client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_generated <> 'NEVER'`,
    );
    for (const t of snapshotTables) {
      const derived = generated.filter((g) => g.table_name === t.name).map((g) => g.column_name);
      const { rows } = await client.query<{ row: Record<string, unknown> }>(
        `SELECT to_jsonb(x) - $1::text[] AS row FROM ${t.name} x ORDER BY ${t.primaryKey.join(', ')}`,
        [derived],
      );
      out[t.name] = rows.map((r) => canonicalJson(redactSecrets(r.row)));
    }
  } finally {
    await client.query('RESET TimeZone');
    client.release();
  }
  return out;
}

/** The tables of an artifact in the same form as liveTables. */
export function artifactTables(artifact: { tables: Record<string, unknown[]> }): Record<string, string[]> {
  return Object.fromEntries(Object.entries(artifact.tables).map(([name, rows]) => [name, rows.map((r) => canonicalJson(r))]));
}
