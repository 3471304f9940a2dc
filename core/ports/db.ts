/** A row set as the database returns it. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/**
 * The database as the core sees it: parameterized SQL and transactions.
 * `transaction` hands the callback a Db bound to one connection; a throw rolls everything back.
 */
export interface Db {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Whether this Db is bound to an open transaction: what runs through it already commits or rolls
   * back as one, so work that only needs atomicity does not need `transaction` (a savepoint, two
   * round trips) on top.
   */
  readonly inTransaction: boolean;
  /**
   * Runs `callback` once the work done through this Db is committed: after the outermost COMMIT
   * inside a transaction (never after a rollback), at once outside one. The callback gets the
   * pool-level Db, for follow-up work that must not hold the transaction's connection.
   */
  afterCommit(callback: (db: Db) => void): void;
  /**
   * A write that must commit with this transaction but that nothing in it reads back (an outbox
   * row). Inside a transaction it travels in the same round trip as the COMMIT, and a savepoint
   * that rolls back drops it; outside one it runs at once. Parameters are strings, numbers or null.
   */
  writeAtCommit(sql: string, params: ReadonlyArray<string | number | null>): Promise<void>;
}
