import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownRunStatuses, runStatusGroups, runTransitions } from '../../core/workflows/run-status';
import { taskStatuses } from '../../core/tasks/statuses';
import { sqlList } from '../../core/sql-text';
import { migrations } from '../../infra/db/migrations/index';

const root = path.resolve(__dirname, '../..');
const coreFiles = readdirSync(path.join(root, 'core'), { withFileTypes: true, recursive: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts'))
  .map((e) => path.relative(root, path.join(e.parentPath, e.name)));

/** Statuses only a run has: a list naming one of them is a list of run statuses, not of task statuses. */
const runOnly = knownRunStatuses.filter((s) => !(taskStatuses as readonly string[]).includes(s));
const quoted = `['"](${knownRunStatuses.join('|')})['"]`;
/** Two or more quoted run statuses in a row, separated by commas: a list, in TypeScript or in SQL. */
const listPattern = new RegExp(`${quoted}(?:\\s*,\\s*${quoted})+`, 'g');

/** Lists that look like run statuses and are something else. */
const otherVocabularies = new Map([
  ['core/runtime/proxies.ts', "the runtime's own task statuses, which its CLI validates"],
  ['core/workflows/run.ts', "override-failure's next_status, the request values of spec 03"],
  ['core/restore/restore-status.ts', 'the states of a restore (GET /api/restore/:restoreId), not of a run'],
]);

describe('run status groups (core/workflows/run-status.ts)', () => {
  it('are the only lists of run statuses written in core: a use case or a query names a group instead', () => {
    const offences = coreFiles
      .filter((file) => file !== 'core/workflows/run-status.ts' && !otherVocabularies.has(file))
      .flatMap((file) =>
        [...readFileSync(path.join(root, file), 'utf8').matchAll(listPattern)]
          .map(([list]) => list)
          .filter((list) => runOnly.some((s) => list.includes(`'${s}'`) || list.includes(`"${s}"`)))
          .map((list) => `${file}: ${list}`),
      );
    expect(offences).toEqual([]);
  });

  it('catches a list written by hand (the check above can fail)', () => {
    const text = `WHERE r.status IN ('dispatched', 'claimed') AND x = ANY(['queued', "paused"])`;
    expect([...text.matchAll(listPattern)].map(([l]) => l)).toEqual([`'dispatched', 'claimed'`, `'queued', "paused"`]);
  });

  it('hold together: active is everything not terminal (paused included), live and held within it, the transitions start from known statuses', () => {
    const { terminal, active, live, inFlight, held, working, underway, handedOut, failed, reopenable, queue } = runStatusGroups;
    expect([...active, ...terminal].sort()).toEqual([...knownRunStatuses].sort());
    expect(active).toContain('paused');
    for (const group of [live, inFlight, held, working, underway, handedOut, queue]) for (const s of group) expect(active).toContain(s);
    for (const group of [failed, reopenable]) for (const s of group) expect(terminal).toContain(s);
    expect(held.filter((s) => s !== 'paused')).toEqual(working);
    for (const t of runTransitions) for (const s of t.from) expect(knownRunStatuses).toContain(s);
  });

  it('the partial indexes of live runs were written with the live group, so the caps statements can use them', () => {
    const migration = migrations.find((m) => m.name === '0800_agent_safety')!.sql;
    const lists = [...migration.matchAll(/workflow_runs_live_\w+ ON workflow_runs \(\w+\) WHERE status IN (\([^)]*\))/g)].map(([, l]) => l);
    expect(lists.length).toBe(2);
    for (const list of lists) expect(list).toBe(sqlList(runStatusGroups.live));
  });
});
