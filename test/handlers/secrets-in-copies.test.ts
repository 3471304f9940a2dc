import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { redactSecrets, SECRET_WORDS_SQL } from '../../core/secrets/redact';
import { logger } from '../../infra/logger';
import { useTestApp } from '../support/use-app';
import { claimedRun, fakeRuntime, fakeTime, templateWithRoute } from './workflow-support';

/*
 * The audit trail, receipts and event streams are copies that travel, so
 * secret-keyed values are redacted when they are written; the entity keeps its data; and an
 * exported "[REDACTED]" sent back through import never replaces the stored secret.
 */

const app = useTestApp();
let type: string;
beforeAll(async () => {
  type = await templateWithRoute(app);
});

// spellings of spec 02's pattern: separators, case, nesting under a non-secret key
const secretKey = fc.constantFrom(
  'api_key',
  'db_password',
  'access_token',
  'Client-Secret',
  'AUTH-TOKEN',
  'apiKey',
  'passwd',
  'credential',
  'x-api-key',
);

async function everyCopy(taskId: string): Promise<string> {
  const reads = [
    await app.call('GET', '/api/audit?limit=100'),
    await app.call('GET', '/api/history?limit=100'),
    await app.call('GET', `/api/history/${taskId}`),
    await app.call('GET', `/api/tasks/${taskId}/history`),
    await app.call('GET', '/api/actions/recent?limit=200'),
  ];
  for (const r of reads) expect(r.status, r.text).toBe(200);
  // the outbox is what /api/events and /api/events/stream (and webhooks) replay
  const outbox = await app.db.query<{ payload: string }>('SELECT payload::text AS payload FROM event_outbox');
  const audit = await app.db.query<{ v: string }>(
    "SELECT coalesce(old_value::text, '') || coalesce(new_value::text, '') AS v FROM audit_log",
  );
  const receipts = await app.db.query<{ v: string }>('SELECT detail::text AS v FROM action_receipts');
  return [
    ...reads.map((r) => r.text),
    ...outbox.rows.map((r) => r.payload),
    ...audit.rows.map((r) => r.v),
    ...receipts.rows.map((r) => r.v),
  ].join('\n');
}

describe('secrets in audit rows, receipts and events', () => {
  it('plants secret-keyed values through every kind of metadata and finds none in any copy or log, while the entity keeps them', async () => {
    fakeTime(app);
    fakeRuntime(app);
    const logged: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    logger().setLogLevel('DEBUG');
    try {
      await fc.assert(
        fc.asyncProperty(secretKey, secretKey, fc.string({ minLength: 1, maxLength: 12 }), async (key, nestedKey, salt) => {
          const marker = (where: string) => `PLANTED-${where}-${randomUUID()}-${salt.replace(/\W/g, '')}`;
          const planted: string[] = [];
          const secretBag = (where: string) => {
            const a = marker(where);
            const b = marker(`${where}-nested`);
            planted.push(a, b);
            return { [key]: a, visible: 'kept', deep: [{ [nestedKey]: b, note: 'kept' }] };
          };
          const project = await app.call('POST', '/api/projects', { body: { name: `p-${randomUUID()}`, metadata: secretBag('project') } });
          expect(project.status, project.text).toBe(201);
          expect(
            (await app.call('PATCH', `/api/projects/${project.body.id}`, { body: { metadata: secretBag('project-patch') } })).status,
          ).toBe(200);
          const task = await app.call('POST', '/api/tasks', {
            body: { project_id: project.body.id, title: 't', metadata: secretBag('task') },
          });
          expect(task.status, task.text).toBe(201);
          const patchBag = secretBag('task-patch');
          expect((await app.call('PATCH', `/api/tasks/${task.body.id}`, { body: { metadata: patchBag } })).status).toBe(200);
          const space = await app.call('POST', '/api/spaces', {
            body: { name: `s-${randomUUID().slice(0, 8)}`, settings: secretBag('space') },
          });
          expect(space.status, space.text).toBe(201);
          const beat = await app.call('POST', '/api/agents/heartbeat', {
            body: { agent_name: `a-${randomUUID().slice(0, 8)}`, metadata: secretBag('heartbeat') },
          });
          expect(beat.status, beat.text).toBe(200);
          const run = await claimedRun(app, type);
          const artifact = await app.call('POST', `/api/workflow-runs/${run.id}/artifacts`, {
            body: { session_id: run.session, artifact_type: 'text', content: 'x', metadata: secretBag('artifact') },
          });
          expect(artifact.status, artifact.text).toBe(201);
          const runWithMeta = await app.call('POST', '/api/workflow-runs', { body: { workflow_type: type, metadata: secretBag('run') } });
          expect(runWithMeta.status, runWithMeta.text).toBe(201);
          const action = await app.call('POST', '/api/actions/execute', {
            body: { actionId: randomUUID(), kind: 'task.assign', targetId: task.body.id, params: { owner: 'bob' } },
          });
          expect(action.status, action.text).toBe(200);

          const copies = (await everyCopy(task.body.id)) + logged.join('\n');
          for (const m of planted) expect(copies.includes(m), m).toBe(false);
          expect(copies).toContain('[REDACTED]');
          // the entity itself keeps its data
          const read = await app.call('GET', `/api/tasks/${task.body.id}`);
          expect(read.body.metadata).toEqual(patchBag);
        }),
        { numRuns: 4, seed: 21 },
      );
    } finally {
      logger().setLogLevel('SILENT' as never);
      spy.mockRestore();
    }
    expect(logged.length).toBeGreaterThan(0);
  });

  it('keeps the whole state in the per-entity snapshot, so a revert restores the real value', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: `p-${randomUUID()}` } });
    const task = await app.call('POST', '/api/tasks', {
      body: { project_id: project.body.id, title: 't', metadata: { api_key: 'REAL-1' } },
    });
    await app.call('PATCH', `/api/tasks/${task.body.id}`, { body: { metadata: { api_key: 'REAL-2' } } });
    const { rows } = await app.db.query<{ state: { metadata: unknown } }>(
      `SELECT state FROM entity_snapshots WHERE entity_type = 'task' AND entity_id = $1 ORDER BY created_at, id`,
      [task.body.id],
    );
    expect(rows.map((r) => r.state.metadata)).toContainEqual({ api_key: 'REAL-1' });
    const audit = await app.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE entity_id = $1 AND (old_value::text LIKE '%REAL-%' OR new_value::text LIKE '%REAL-%')`,
      [task.body.id],
    );
    expect(audit.rows[0]!.n).toBe(0);
  });
});

describe('export then import keeps secrets', () => {
  it('merge: an exported "[REDACTED]" never overwrites the stored value; other fields still import', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: `p-${randomUUID()}` } });
    const task = await app.call('POST', '/api/tasks', {
      body: { project_id: project.body.id, title: 'before', metadata: { api_key: 'REAL', nested: { db_password: 'ALSO-REAL' }, plain: 1 } },
    });
    const exported = await app.call('GET', '/api/export');
    const row = exported.body.tasks.find((t: { id: string }) => t.id === task.body.id);
    expect(row.metadata).toEqual({ api_key: '[REDACTED]', nested: { db_password: '[REDACTED]' }, plain: 1 });
    const res = await app.call('POST', '/api/import', { body: { version: 1, mode: 'merge', tasks: [{ ...row, title: 'after' }] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.secretsDropped).toBeUndefined();
    const stored = await app.db.query<{ title: string; metadata: unknown }>('SELECT title, metadata FROM tasks WHERE id = $1', [
      task.body.id,
    ]);
    expect(stored.rows[0]).toEqual({ title: 'after', metadata: { api_key: 'REAL', nested: { db_password: 'ALSO-REAL' }, plain: 1 } });
  });

  it('replace: the stored secret survives the table being emptied and refilled', async () => {
    const project = await app.call('POST', '/api/projects', {
      body: { name: `p-${randomUUID()}`, metadata: { access_token: 'PROJECT-REAL' } },
    });
    const exported = await app.call('GET', '/api/export');
    const res = await app.call('POST', '/api/import', {
      body: { version: 1, mode: 'replace', projects: exported.body.projects, tasks: exported.body.tasks },
    });
    expect(res.status, res.text).toBe(200);
    const stored = await app.db.query<{ metadata: unknown }>('SELECT metadata FROM projects WHERE id = $1', [project.body.id]);
    expect(stored.rows[0]!.metadata).toEqual({ access_token: 'PROJECT-REAL' });
  });

  it('a new row carrying a marker is stored without that key, and the answer and the audit row name it', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: `p-${randomUUID()}` } });
    const id = randomUUID();
    const row = { id, project_id: project.body.id, title: 'new', metadata: { api_key: '[REDACTED]', keep: 'yes' } };
    const res = await app.call('POST', '/api/import', { body: { version: 1, mode: 'merge', tasks: [row] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.secretsDropped).toEqual([`tasks/${id}: metadata.api_key`]);
    const stored = await app.db.query<{ metadata: unknown }>('SELECT metadata FROM tasks WHERE id = $1', [id]);
    expect(stored.rows[0]!.metadata).toEqual({ keep: 'yes' });
    const audit = await app.db.query<{ v: { secretsDropped: string[] } }>(
      `SELECT new_value AS v FROM audit_log WHERE action = 'imported' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit.rows[0]!.v.secretsDropped).toEqual([`tasks/${id}: metadata.api_key`]);
  });

  it('a marker under a key that is not secret-looking is ordinary data', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: `p-${randomUUID()}` } });
    const id = randomUUID();
    const res = await app.call('POST', '/api/import', {
      body: { version: 1, tasks: [{ id, project_id: project.body.id, title: 'n', metadata: { note: '[REDACTED]' } }] },
    });
    expect(res.status, res.text).toBe(200);
    const stored = await app.db.query<{ metadata: unknown }>('SELECT metadata FROM tasks WHERE id = $1', [id]);
    expect(stored.rows[0]!.metadata).toEqual({ note: '[REDACTED]' });
  });
});

describe('the secret-word filter of statements that write audit copies themselves', () => {
  it('matches the JSON text of every value the redaction pass would change', async () => {
    // keys from spec 02's spellings, near misses and arbitrary text, at any depth
    const key = fc.oneof(
      secretKey,
      fc.constantFrom('keyboard', 'monkey', 'tokens', 'my_token', 'Password1', 'secretary'),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 0 }),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        const text = JSON.stringify(v);
        const { rows } = await app.db.query<{ matches: boolean }>(`SELECT $1::jsonb::text ~* '${SECRET_WORDS_SQL}' AS matches`, [text]);
        if (JSON.stringify(redactSecrets(v)) !== text) expect(rows[0]!.matches).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
