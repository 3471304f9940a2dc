import type { Clock, Db, Runtime } from '../../core/ports';
import { RuntimeCallError, type RuntimeFailure } from '../../core/errors';

/** A clock that stands still until told to move: time rules are tested by moving it, never by sleeping. */
export function movableClock(start: Date | string = '2026-11-01T12:00:00.000Z') {
  let now = new Date(start).getTime();
  const clock: Clock & { set(at: Date | string): void; advance(ms: number): void } = {
    now: () => new Date(now),
    set: (at) => {
      now = new Date(at).getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
  return clock;
}

/**
 * An in-process Runtime that records every call and answers from a script; for use-case and
 * handler tests. (The CLI contract itself is tested against the fake runtime executable.)
 */
export function recordingRuntime(answer: (args: readonly string[]) => Record<string, unknown> | RuntimeFailure = () => ({ ok: true })) {
  const calls: string[][] = [];
  const runtime: Runtime & { calls: string[][] } = {
    stateDir: '/nonexistent-runtime-state',
    calls,
    async run(args) {
      calls.push([...args]);
      const result = answer(args);
      if (typeof result === 'string') throw new RuntimeCallError(`runtime ${args[0]} ${result}`, result);
      return result;
    },
  };
  return runtime;
}

/** A Db that records every statement and answers each with `rows`; for unit tests of SQL builders. */
export function recordingDb(rows: Array<Record<string, unknown>> = []) {
  const statements: Array<{ sql: string; params: readonly unknown[] }> = [];
  const db: Db & { statements: typeof statements } = {
    statements,
    inTransaction: false,
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      statements.push({ sql, params });
      return { rows: rows as Row[], rowCount: rows.length };
    },
    transaction: (work) => work(db),
    afterCommit: (callback) => callback(db),
    writeAtCommit: async (sql, params) => void (await db.query(sql, params)),
  };
  return db;
}
