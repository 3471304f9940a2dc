import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taskColumns } from '../../core/tasks/task';
import { redactSecrets } from '../../core/secrets/redact';
import { taskColumnKinds } from '../../core/tasks/task-json';
import { boardColumns, urgencyOrder } from '../../core/views/board';
import { useTestApp } from '../support/use-app';

/*
 * Lists built in SQL: GET /api/tasks/all, the board, the agent queue and the timeline answer each task's JSON text as PostgreSQL
 * builds it (core/tasks/task-json.ts). The oracle is what the listing answered before: the row read
 * by pg and given to JSON.stringify. Random tasks go in through the API, then each is also given
 * what only the database can hold (microsecond timestamps, efforts PostgreSQL prints with an
 * exponent), and every byte must match.
 */
const app = useTestApp();

/** Every task's JSON as the listing answered it before: pg's row, stringified. */
async function oracle(): Promise<string[]> {
  const { rows } = await app.db.query(`SELECT ${taskColumns} FROM tasks WHERE deleted_at IS NULL ORDER BY created_at, id`);
  return rows.map((row) => JSON.stringify(row));
}

/** The items of a JSON array's text, each as the server wrote it (top-level split, strings respected). */
function itemTexts(array: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 1;
  for (let i = 0; i < array.length; i++) {
    const c = array[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0 && c === ']') {
        if (i > start) items.push(array.slice(start, i));
      }
    } else if (c === ',' && depth === 1) {
      items.push(array.slice(start, i));
      start = i + 1;
    }
  }
  return items;
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0 && !s.includes('\u0000'));
const instant = fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true });

const taskBody = fc.record(
  {
    title: text,
    status: fc.constantFrom(...boardColumns),
    priority: fc.constantFrom('low', 'medium', 'high', 'critical'),
    description: fc.string({ unit: 'binary', maxLength: 60 }).filter((s) => !s.includes('\u0000')),
    owner: fc.option(fc.oneof(text, fc.constant('queue-agent')), { nil: null }),
    due_date: fc.option(
      instant.map((d) => d.toISOString()),
      { nil: null },
    ),
    estimated_effort: fc.option(fc.double({ min: 0, max: 1_000_000, noNaN: true }), { nil: null }),
    labels: fc.array(text, { maxLength: 3 }),
    metadata: fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.nat({ max: 50 }).map(String)), jsonValue, { maxKeys: 4 }),
  },
  { requiredKeys: ['title', 'status'] },
);

/**
 * The tasks of `bodies`, created through the API after every other task is deleted: each property
 * run on its own tasks, so that a shrunk counterexample is the whole story. Answers their ids.
 */
async function onlyTasks(projectId: string, bodies: ReadonlyArray<Record<string, unknown>>): Promise<string[]> {
  await app.db.query('DELETE FROM tasks');
  const ids: string[] = [];
  for (const body of bodies) {
    const created = await app.call('POST', '/api/tasks', { body: { ...body, project_id: projectId } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    ids.push(created.body.id);
  }
  return ids;
}

/**
 * The runs of a property, bounded inside the test's 90 s: a run is about 20 ms here and has taken
 * seconds under CI's load, and a failure found late is shrunk by hundreds more runs. Past 60 s no
 * new run starts, so a counterexample is reported (shrunk as far as it got) instead of the test
 * timing out and running on beneath the next one; a single run that stops answering fails with
 * its input after 20 s.
 */
function propertyLimits(numRuns: number): fc.Parameters<unknown> {
  return { numRuns, interruptAfterTimeLimit: 60_000, timeout: 20_000 };
}

describe('task lists and views: JSON built in PostgreSQL', () => {
  it('knows how to write every column of the tasks table whose JSON PostgreSQL writes its own way', async () => {
    // a column added later (a timestamp, jsonb, a float) must be listed, or its bytes would change;
    // uuids and integers are written by their own text, which is what to_json writes
    const { rows } = await app.db.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'tasks'`,
    );
    const expected = Object.fromEntries(
      rows.flatMap(({ column_name, data_type }) =>
        data_type.startsWith('timestamp')
          ? [[column_name, 'iso']]
          : ['jsonb', 'json', 'double precision', 'real', 'numeric'].includes(data_type)
            ? [[column_name, 'node']]
            : data_type === 'uuid'
              ? [[column_name, 'uuid']]
              : ['integer', 'bigint', 'smallint'].includes(data_type)
                ? [[column_name, 'int']]
                : [],
      ),
    );
    expect(taskColumnKinds).toEqual(expected);
  });

  it('keep a value holding the character that separates the stored runs (chr(1)) as JSON.stringify writes it', async () => {
    // the stored text splits its runs at raw chr(1): a value's own chr(1) must be written escaped, never raw
    const project = await app.call('POST', '/api/projects', { body: { name: 'separator' } });
    await onlyTasks(project.body.id, [{ title: 'a\u0001b', description: '\u0001', labels: ['\u0001', 'x\u0001'], owner: '\u0001queue' }]);
    const listed = await app.call('GET', '/api/tasks/all');
    expect(itemTexts(listed.text)).toEqual(await oracle());
    expect(listed.body[0]).toMatchObject({ title: 'a\u0001b', description: '\u0001', labels: ['\u0001', 'x\u0001'], owner: '\u0001queue' });
  });

  it('keep the whole text in the row when PostgreSQL can write every value, and the runs otherwise', async () => {
    // migration 1060: metadata {} and whole-number (or null) efforts are written by PostgreSQL; anything else is spliced by the reader
    await app.db.query('DELETE FROM tasks');
    const project = await app.call('POST', '/api/projects', { body: { name: 'whole' } });
    // migration 1070: flat metadata too, when JSON.parse of jsonb's text and JSON.stringify keep its members as PostgreSQL writes them
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{}, true],
      [{ estimated_effort: 8 }, true],
      [{ estimated_effort: 1.5 }, false],
      [{ metadata: { a: 1, bb: 'x"\\\u0001é', c: true, d: null, e: -42, f: 999_999_999_999_999 } }, true],
      [{ metadata: { a: 1.5 } }, false],
      [{ metadata: { a: 1e20 } }, false],
      [{ metadata: { b: 1, 10: 'x', 2: 'y' } }, false],
      [{ metadata: { a: { nested: true } } }, false],
      [{ metadata: { a: [1] } }, false],
    ];
    for (const [extra, whole] of cases) {
      const created = await app.call('POST', '/api/tasks', {
        body: { project_id: project.body.id, title: JSON.stringify(extra), ...extra },
      });
      expect(created.status).toBe(201);
      const { rows } = await app.db.query<{ whole: boolean }>(`SELECT left(json_segments, 1) = '{' AS whole FROM tasks WHERE id = $1`, [
        created.body.id,
      ]);
      expect(rows[0]!.whole, JSON.stringify(extra)).toBe(whole);
    }
    // a whole text writes negative zero as JSON.stringify does: 0
    await app.db.query(`UPDATE tasks SET actual_effort = '-0' WHERE title = '{}'`);
    const listed = await app.call('GET', '/api/tasks/all');
    expect(itemTexts(listed.text)).toEqual(await oracle());
  });

  it('answer every task byte for byte as JSON.stringify of its row did', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: 'json text' } });
    await fc.assert(
      fc.asyncProperty(
        fc.array(taskBody, { minLength: 1, maxLength: 4 }),
        fc.array(
          fc.record({
            micros: fc.integer({ min: 0, max: 999_999 }),
            effort: fc.constantFrom(
              1e-7,
              123.456,
              1e20,
              5e-324,
              0.1 + 0.2,
              Number.NaN,
              42,
              -0,
              1e14,
              999_999_999_999_999,
              1e15,
              -7,
              Infinity,
            ),
          }),
          { minLength: 1, maxLength: 2 },
        ),
        async (bodies, oddities) => {
          const ids = await onlyTasks(project.body.id, bodies);
          for (const [i, odd] of oddities.entries()) {
            await app.db.query(
              `UPDATE tasks SET locked_at = '2026-11-26 10:20:30'::timestamptz + make_interval(secs => $2::float8 / 1e6), locked_by = 'agent x',
                      actual_effort = $3, lease_expires_at = '2026-11-26 11:00:00.0005+00' WHERE id = $1`,
              [ids[i % ids.length], odd.micros, odd.effort],
            );
          }
          const listed = await app.call('GET', '/api/tasks/all');
          expect(listed.status).toBe(200);
          expect(itemTexts(listed.text)).toEqual(await oracle());

          const board = await app.call('GET', `/api/views/board?project_id=${project.body.id}`);
          expect(board.status).toBe(200);
          // the whole answer is JSON.stringify's text (no jsonb spacing, no 1.0, V8's key order) ...
          expect(board.text).toBe(JSON.stringify(JSON.parse(board.text)));
          // ... and each column holds the rows JSON.stringify gave before, in urgency order
          for (const column of boardColumns) {
            const { rows } = await app.db.query(
              `SELECT ${taskColumns} FROM tasks t WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND status = $2 ORDER BY ${urgencyOrder}`,
              [project.body.id, column],
            );
            expect(JSON.stringify(board.body.columns[column])).toBe(`[${rows.map((r) => JSON.stringify(r)).join(',')}]`);
          }

          const queue = await app.call('GET', '/api/views/agent?agent=queue-agent&limit=200');
          expect(queue.status).toBe(200);
          expect(queue.text).toBe(JSON.stringify(JSON.parse(queue.text)));
          const { rows: queued } = await app.db.query(
            `SELECT ${taskColumns} FROM tasks WHERE owner = 'queue-agent' AND status IN ('ready', 'in_progress') AND deleted_at IS NULL AND archived_at IS NULL
              ORDER BY (status = 'in_progress') DESC, CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END,
                       due_date NULLS LAST, created_at, id`,
          );
          expect(JSON.stringify(queue.body.tasks)).toBe(`[${queued.map((r) => JSON.stringify(r)).join(',')}]`);

          const timeline = await app.call('GET', `/api/views/timeline?project_id=${project.body.id}`);
          expect(timeline.status).toBe(200);
          expect(timeline.text).toBe(JSON.stringify(JSON.parse(timeline.text)));
          const { rows: dated } = await app.db.query(
            `SELECT ${taskColumns} FROM tasks WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND (start_date IS NOT NULL OR due_date IS NOT NULL)
              ORDER BY coalesce(start_date, due_date), created_at, id`,
            [project.body.id],
          );
          expect(JSON.stringify(timeline.body.tasks.map((e: { task: unknown }) => e.task))).toBe(
            `[${dated.map((r) => JSON.stringify(r)).join(',')}]`,
          );

          // the task as jsonb built in SQL (task_state_json, migration 1000: the one-round-trip claim's answer, snapshot and audit copies)
          // is JSON.stringify's value, and redacted as the pass redacts it
          const { rows: built } = await app.db.query<{ plain: unknown; redacted: unknown }>(
            `SELECT task_state_json(t, false) AS plain, task_state_json(t, true) AS redacted FROM tasks t ORDER BY t.created_at, t.id`,
          );
          const { rows: read } = await app.db.query(`SELECT ${taskColumns} FROM tasks ORDER BY created_at, id`);
          expect(built.map((b) => b.plain)).toEqual(read.map((r) => JSON.parse(JSON.stringify(r))));
          expect(built.map((b) => b.redacted)).toEqual(read.map((r) => redactSecrets(JSON.parse(JSON.stringify(r)))));
        },
      ),
      propertyLimits(15),
    );
  }, 90_000);

  it('answer a task detail byte for byte as JSON.stringify of its row and links did', async () => {
    const project = await app.call('POST', '/api/projects', { body: { name: 'detail text' } });
    await fc.assert(
      fc.asyncProperty(fc.array(taskBody, { minLength: 2, maxLength: 4 }), async (bodies) => {
        const ids = await onlyTasks(project.body.id, bodies);
        // the task detail: the first task depends on the others, which are its subtasks too; its
        // text is what JSON.stringify gave the row read by pg and its links read as values
        await app.db.query('UPDATE tasks SET dependency_ids = $2::uuid[] WHERE id = $1', [ids[0], ids.slice(1)]);
        await app.db.query('UPDATE tasks SET parent_task_id = $1 WHERE id = ANY($2::uuid[])', [ids[0], ids.slice(1)]);
        for (const id of [ids[0]!, ids[1]!]) {
          const detail = await app.call('GET', `/api/tasks/${id}`);
          expect(detail.status).toBe(200);
          const { rows } = await app.db.query<Record<string, unknown> & { entries: number }>(
            `SELECT ${taskColumns},
               COALESCE((SELECT json_agg(json_build_object('id', d.id, 'title', d.title, 'status', d.status) ORDER BY array_position(t.dependency_ids, d.id))
                           FROM tasks d WHERE d.id = ANY(t.dependency_ids) AND d.deleted_at IS NULL), '[]') AS dependencies,
               COALESCE((SELECT json_agg(json_build_object('id', s.id, 'title', s.title, 'status', s.status) ORDER BY s.created_at, s.id)
                           FROM tasks s WHERE s.parent_task_id = t.id AND s.deleted_at IS NULL), '[]') AS subtasks,
               (SELECT count(*)::int FROM audit_log a WHERE a.task_id = t.id) AS entries
             FROM tasks t WHERE t.id = $1`,
            [id],
          );
          const { entries, ...row } = rows[0]!;
          expect(detail.text).toBe(JSON.stringify({ ...row, history: { url: `/api/tasks/${id}/history`, entries } }));
        }
      }),
      propertyLimits(10),
    );
  }, 90_000);
});
