import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditPageSql, parseAuditQuery } from '../../core/audit/list-audit';
import { allTasksPageSql } from '../../core/tasks/queries';
import { boardColumns, boardCountsSql, boardFirstTasksSql, boardTasksSql } from '../../core/views/board';
import { movableClock } from '../support/fakes';
import { useTestApp } from '../support/use-app';

const app = useTestApp();
let projectId: string;
let taskId: string;

beforeAll(async () => {
  const clock = movableClock('2033-04-10T08:00:00.000Z');
  const previous = app.ctx.deps.clock;
  app.ctx.deps.clock = clock;
  projectId = (await app.call('POST', '/api/projects', { body: { name: 'Audited' } })).body.id;
  clock.set('2033-04-11T08:00:00.000Z');
  taskId = (await app.call('POST', '/api/tasks', { body: { project_id: projectId, title: 'Needle_in 100% haystack' } })).body.id;
  clock.set('2033-04-12T08:00:00.000Z');
  await app.call('POST', `/api/tasks/${taskId}/move`, { body: { status: 'ready' } });
  await app.call('POST', '/api/agent/claim', { body: { task_id: taskId, agent_name: 'auditor-bot' } });
  app.ctx.deps.clock = previous;
  await app.db.query(
    `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
     VALUES ('2033-04-12T09:00:00Z', 'dashboard-operator', 'action.task.assign', 'action', $1, '{"outcome":"executed"}')`,
    [taskId],
  );
});

const actions = (rows: Array<{ action: string }>) => rows.map((r) => r.action);

describe('GET /api/audit', () => {
  it('lists audit records newest first with actor, action, entity_type, task and project ids and values', async () => {
    const res = await app.call('GET', '/api/audit');
    expect(res.status).toBe(200);
    expect(actions(res.body)).toEqual(['action.task.assign', 'claimed', 'status_changed', 'created', 'created']);
    expect(res.body[2]).toMatchObject({
      actor: 'dashboard-operator',
      entity_type: 'task',
      task_id: taskId,
      project_id: projectId,
      old_value: { status: 'backlog' },
      new_value: { status: 'ready' },
      timestamp: '2033-04-12T08:00:00.000Z',
    });
  });

  it('filters by actor, action, task_id, entity_type, date range and governance_only', async () => {
    expect(actions((await app.call('GET', '/api/audit?actor=auditor-bot')).body)).toEqual(['claimed']);
    expect(actions((await app.call('GET', '/api/audit?action=created')).body)).toEqual(['created', 'created']);
    expect(actions((await app.call(`GET`, `/api/audit?task_id=${taskId}`)).body)).toEqual(['claimed', 'status_changed', 'created']);
    expect(actions((await app.call('GET', '/api/audit?entity_type=project')).body)).toEqual(['created']);
    expect(actions((await app.call('GET', '/api/audit?start_date=2033-04-11&end_date=2033-04-11')).body)).toEqual(['created']);
    expect(actions((await app.call('GET', '/api/audit?start_date=2033-04-12')).body)).toHaveLength(3);
    expect(actions((await app.call('GET', '/api/audit?end_date=2033-04-10')).body)).toEqual(['created']);
    expect(actions((await app.call('GET', '/api/audit?governance_only=true')).body)).toEqual(['action.task.assign']);
    expect(actions((await app.call('GET', '/api/audit?governance_only=false')).body)).toHaveLength(5);
  });

  it('searches free text over actor, action and values, case-insensitively and literally', async () => {
    expect(actions((await app.call('GET', '/api/audit?q=AUDITOR')).body)).toEqual(['claimed']);
    expect(actions((await app.call('GET', '/api/audit?q=needle_in')).body)).toEqual(['claimed', 'status_changed', 'created']);
    expect(actions((await app.call('GET', `/api/audit?q=${encodeURIComponent('100%')}`)).body)).toHaveLength(3);
    expect((await app.call('GET', `/api/audit?q=${encodeURIComponent('1%0')}`)).body).toEqual([]);
    expect((await app.call('GET', '/api/audit?q=needle_ix')).body).toEqual([]);
    expect(actions((await app.call('GET', '/api/audit?q=executed')).body)).toEqual(['action.task.assign']);
  });

  it('pages with limit and offset', async () => {
    const page = await app.call('GET', '/api/audit?limit=2&offset=1');
    expect(actions(page.body)).toEqual(['claimed', 'status_changed']);
    expect((await app.call('GET', '/api/audit?offset=50')).body).toEqual([]);
  });

  it('answers invalid values with 400 naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['limit=0', /limit/],
      ['limit=501', /limit/],
      ['limit=ten', /limit/],
      ['offset=-1', /offset/],
      ['start_date=2033-13-01', /start_date/],
      ['end_date=yesterday', /end_date/],
      ['start_date=2033-05-01&end_date=2033-04-01', /start_date/],
      ['governance_only=maybe', /governance_only/],
      ['task_id=nope', /task_id/],
    ];
    for (const [query, message] of cases) {
      const res = await app.call('GET', `/api/audit?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect((await app.call('GET', '/api/audit?limit=500')).status).toBe(200);
    const ignored = await app.call('GET', '/api/audit?colour=red&limit=1');
    expect(ignored.status).toBe(200);
    expect(ignored.headers['x-ignored-params']).toBe('colour');
    expect(ignored.body).toHaveLength(1);
  });

  it('never answers 5xx to random query values', async () => {
    const key = fc.constantFrom(
      'q',
      'actor',
      'action',
      'task_id',
      'entity_type',
      'start_date',
      'end_date',
      'governance_only',
      'limit',
      'offset',
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, fc.string({ maxLength: 30 })), async (params) => {
        const res = await app.call('GET', `/api/audit?${new URLSearchParams(params)}`);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 80 },
    );
  });
});

describe('folding the search index (migrations 1020, 1180)', () => {
  it('leaves nothing pending in the trigram index after a fold, so a search reads the index alone', async () => {
    // only the fold may merge the list here: autovacuum would hide a fold that leaves one
    await app.db.query('ALTER TABLE audit_search SET (autovacuum_enabled = false)');
    await app.db.query(
      `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
       SELECT now(), 'merge-probe', 'updated', 'task', g::text, jsonb_build_object('title', 'merge probe ' || g || ' ' || md5(g::text))
         FROM generate_series(1, 200) g`,
    );
    expect((await app.db.query<{ n: number }>('SELECT audit_search_fold(100000) AS n')).rows[0]!.n).toBeGreaterThanOrEqual(200);
    // what a merge now would move: the pages the fold left in the list (38 for these rows when the fold did not merge)
    const { rows } = await app.db.query<{ pages: number }>(`SELECT gin_clean_pending_list('audit_search_text_trgm') AS pages`);
    expect(Number(rows[0]!.pages)).toBe(0);
  });

  it('folds under a role that does not own the trigram index, leaving the merge of its pending list to autovacuum', async () => {
    const role = `audit_folder_${process.pid}_${Date.now()}`;
    await app.db.query(`CREATE ROLE ${role} NOLOGIN`);
    try {
      await app.db.query(`GRANT SELECT ON audit_log TO ${role}`);
      await app.db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON audit_search, audit_search_pending TO ${role}`);
      await app.db.query(
        `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, new_value)
         VALUES (now(), 'fold-probe', 'updated', 'task', 'probe', '{"title":"folded without owning the index"}')`,
      );
      const { folded, found } = await app.db.transaction(async (tx) => {
        await tx.query(`SET LOCAL ROLE ${role}`);
        const moved = await tx.query<{ n: number }>('SELECT audit_search_fold(100000) AS n');
        const indexed = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM audit_search WHERE search_text LIKE '%folded without owning the index%'`,
        );
        return { folded: moved.rows[0]!.n, found: indexed.rows[0]!.n };
      });
      expect(folded).toBeGreaterThan(0);
      expect(found).toBe(1);
      const res = await app.call('GET', `/api/audit?q=${encodeURIComponent('folded without owning')}`);
      expect(res.body.map((r: { actor: string }) => r.actor)).toEqual(['fold-probe']);
    } finally {
      await app.db.query(`DROP OWNED BY ${role}`);
      await app.db.query(`DROP ROLE ${role}`);
    }
  });

  it('folds while the trigram index is dropped (a bulk load builds it after), with nothing to merge', async () => {
    const rollBack = new Error('rolled back: the index stays');
    let moved = 0;
    const outcome = await app.db
      .transaction(async (tx) => {
        await tx.query('DROP INDEX audit_search_text_trgm');
        await tx.query(
          `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id) VALUES (now(), 'bulk-load', 'created', 'task', 'probe')`,
        );
        moved = (await tx.query<{ n: number }>('SELECT audit_search_fold(100000) AS n')).rows[0]!.n;
        throw rollBack;
      })
      .catch((error: unknown) => error);
    expect(outcome).toBe(rollBack);
    expect(moved).toBeGreaterThan(0);
  });
});

describe('filters are served by indexes', () => {
  async function plan(sql: string, params: unknown[]): Promise<string> {
    const { rows } = await app.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  it('no audit search or task filter plans a sequential scan on tables large enough for an index to pay', async () => {
    // only the folds may merge the trigram index's pending list, so the plans show what a fold leaves
    // (a list left unmerged made the planner scan audit_search until autovacuum came by)
    await app.db.query('ALTER TABLE audit_search SET (autovacuum_enabled = false)');
    await app.db.query(
      `INSERT INTO projects (id, name) SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(g), 12, '0'))::uuid, 'p' || g FROM generate_series(1, 40) g`,
    );
    await app.db.query(
      `INSERT INTO tasks (id, project_id, title, status, owner, updated_at, created_at)
       SELECT gen_random_uuid(), ('00000000-0000-4000-a000-' || lpad(to_hex(1 + g % 40), 12, '0'))::uuid, 'task ' || g,
              (ARRAY['backlog','ready','in_progress','blocked','review','completed'])[1 + g % 6], 'agent-' || (g % 200),
              now() - g * interval '1 minute', now() - g * interval '1 minute'
         FROM generate_series(1, 20000) g`,
    );
    await app.db.query(
      `INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, task_id, project_id, new_value)
       SELECT now() - g * interval '1 second', 'agent-' || (g % 300), (ARRAY['created','updated','status_changed','deleted'])[1 + g % 4],
              (ARRAY['task','project','workspace'])[1 + g % 3], g::text, gen_random_uuid(), NULL, jsonb_build_object('title', 'row ' || g || ' ' || md5(g::text))
         FROM generate_series(1, 60000) g`,
    );
    // what a dispatcher tick does with the rows writes left: index them for q (the few written after it stay pending)
    for (let i = 0; i < 10 && (await app.db.query('SELECT 1 FROM audit_search_pending LIMIT 1')).rows.length; i++) {
      expect((await app.call('POST', '/api/workflow-runs/dispatcher/tick')).status).toBe(200);
    }
    await app.db.query('ANALYZE tasks');
    await app.db.query('ANALYZE audit_log');
    await app.db.query('ANALYZE audit_search');
    await app.db.query('ANALYZE audit_search_pending');

    const searches = [
      'q=5d41402abc4b2a76',
      'actor=agent-7',
      'action=deleted',
      `task_id=${taskId}`,
      'entity_type=project&actor=agent-3',
      'start_date=2033-04-11&end_date=2033-04-12',
      'governance_only=true',
      'q=row%2012345&limit=500',
    ];
    for (const search of searches) {
      const filter = parseAuditQuery(Object.fromEntries(new URLSearchParams(search)));
      const { sql, params } = auditPageSql(filter, filter.limit, filter.offset);
      const text = await plan(sql, params);
      expect(text, `${search}\n${text}`).not.toMatch(/Seq Scan on audit_(log|search)/);
    }
    const project = '00000000-0000-4000-a000-000000000007';
    const laterPage = { cursor_at: new Date(Date.now() - 600 * 60_000).toISOString(), cursor_id: '00000000-0000-4000-a000-000000000001' };
    for (const { sql, params } of [
      allTasksPageSql({ project_id: project }, undefined),
      allTasksPageSql({ updated_since: new Date(Date.now() - 30 * 60_000) }, undefined),
      // a later page of the unfiltered listing starts at its keyset position
      allTasksPageSql({}, laterPage),
      allTasksPageSql({ project_id: project, include_archived: false }, laterPage),
      { sql: boardTasksSql, params: [project, boardColumns] },
      // the columns' counts of the board's first screenful
      { sql: boardCountsSql, params: [project, boardColumns] },
    ]) {
      const text = await plan(sql, params);
      expect(text, text).not.toMatch(/Seq Scan on tasks/);
    }
    // the board's first screenful (limit_per_column) reads each column's first tasks in order (migration 1170)
    const firstScreenful = await plan(boardFirstTasksSql, [project, boardColumns, 20]);
    expect(firstScreenful, firstScreenful).toMatch(/Index Scan using tasks_board_column_order/);
    expect(firstScreenful, firstScreenful).not.toMatch(/Seq Scan on tasks/);
  });

  it('a later page of GET /api/tasks/all seeks to its keyset position in the generic plan of its prepared statement too', async () => {
    const { sql, params } = allTasksPageSql({}, { cursor_at: new Date().toISOString(), cursor_id: '00000000-0000-4000-a000-000000000001' });
    // the plan PostgreSQL keeps for a named statement it has run often: no parameter value known
    const text = await app.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await tx.query(`PREPARE all_tasks_page AS ${sql}`);
      try {
        // EXPLAIN takes no bind parameters: the values go in as literals (a number, a uuid and a timestamp)
        const literals = params.map((p) => (typeof p === 'number' ? String(p) : `'${String(p)}'`)).join(', ');
        return (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE all_tasks_page(${literals})`)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      } finally {
        await tx.query('DEALLOCATE all_tasks_page');
      }
    });
    expect(text, text).toMatch(/Index Cond: \(ROW\(created_at, id\) > ROW\(/);
  });
});
