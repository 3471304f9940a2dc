import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patchRow } from '../../core/patch-row';
import { recordingDb } from '../support/fakes';

const at = new Date('2026-11-24T05:00:00.000Z');

describe('patchRow, the one PATCH statement', () => {
  it('sets each given column from a parameter, stamps updated_at, and answers the returned row', async () => {
    const db = recordingDb([{ id: 'a', title: 'new' }]);
    const row = await patchRow(db, { table: 'tasks', key: 'a', set: { title: 'new', priority: 'high' }, at, returning: 'id, title' });
    expect(row).toEqual({ id: 'a', title: 'new' });
    expect(db.statements).toEqual([
      {
        sql: 'UPDATE tasks SET title = $2, priority = $3, updated_at = $4 WHERE id = $1 RETURNING id, title',
        params: ['a', 'new', 'high', at],
      },
    ]);
  });

  it('matches another key column when told (templates are keyed by name), and answers undefined when no row has the key', async () => {
    const db = recordingDb([]);
    expect(
      await patchRow(db, { table: 'workflow_templates', keyColumn: 'name', key: 'triage', set: {}, at, returning: 'name' }),
    ).toBeUndefined();
    expect(db.statements[0]!.sql).toBe('UPDATE workflow_templates SET updated_at = $2 WHERE name = $1 RETURNING name');
  });

  it('never puts a value into the SQL text, whatever the values are', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/), fc.string()), async (set) => {
        const db = recordingDb();
        await patchRow(db, { table: 'projects', key: 'k', set, at, returning: 'id' });
        const { sql, params } = db.statements[0]!;
        expect(params).toEqual(['k', ...Object.values(set), at]);
        expect(sql.match(/\$\d+/g)).toHaveLength(Object.keys(set).length + 2);
      }),
    );
  });

  it('refuses a column name that is not a plain identifier (a bug in the caller, never request input)', async () => {
    await expect(patchRow(recordingDb(), { table: 'tasks', key: 'a', set: { 'title = 1; --': 'x' }, at, returning: 'id' })).rejects.toThrow(
      /not a column name/,
    );
  });
});
