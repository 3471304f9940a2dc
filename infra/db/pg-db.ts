import pg from 'pg';
import { ConflictError, StorageUnavailableError, ValidationError } from '../../core/errors';
import type { Db, QueryResult } from '../../core/ports';
import { parseTimestamptz } from './timestamptz';

// bigint counts and numeric values arrive as strings by default; every such value here fits a double.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);

/** pg's own message when a query outlives query_timeout (the server never answered). */
const READ_TIMEOUT = 'Query read timeout';

/** The translated errors of connections whose server stopped answering: such a connection is discarded, never reused. */
const unanswered = new WeakSet<object>();

function stoppedAnswering(err: unknown): boolean {
  return (err as Error)?.message === READ_TIMEOUT || (typeof err === 'object' && err !== null && unanswered.has(err));
}

/** SQLSTATE classes and socket errors that mean "the database is not there right now". */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * Turns driver failures into domain errors, so that a constraint the core forgot to check
 * still answers 4xx, and an absent database answers 503, never 500.
 */
export function translatePgError(err: unknown): unknown {
  const e = err as { code?: string; message?: string; detail?: string; constraint?: string; column?: string };
  const code = e?.code;
  if (!code) {
    if (e?.message === READ_TIMEOUT) {
      const translated = new StorageUnavailableError('database unavailable: it did not answer in time');
      unanswered.add(translated);
      return translated;
    }
    if (e?.message && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(e.message)) {
      return new StorageUnavailableError(`database unavailable: ${e.message}`);
    }
    return err;
  }
  if (unavailableCodes.has(code) || code.startsWith('08')) return new StorageUnavailableError(`database unavailable (${code})`);
  // statement_timeout: the server is alive but this statement ran too long (load, a lock held elsewhere)
  if (code === '57014') return new StorageUnavailableError('database unavailable: the statement did not finish in time');
  if (code === '23505') return new ConflictError(`duplicate value violates ${e.constraint ?? 'a unique rule'}`);
  if (code === '23503')
    return new ConflictError(
      `reference rule ${e.constraint ?? ''} violated: the referenced row does not exist or is still referenced`.replace('  ', ' '),
    );
  if (code === '23514') return new ValidationError(`value breaks the rule ${e.constraint ?? '(check constraint)'}`);
  if (code === '23502') return new ValidationError(`${e.column ?? 'a required field'} must not be null`);
  if (code.startsWith('22')) return new ValidationError(`invalid value: ${e.message ?? code}`);
  return err;
}

/** An after-commit callback never fails the work that committed: it is follow-up, not part of it. */
function runCallback(callback: (db: Db) => void, db: Db): void {
  try {
    callback(db);
  } catch {
    // the callback's own error handling decides; the commit stands
  }
}

/** What a transaction sends with its COMMIT, and what it runs after. */
interface CommitWork {
  writes: string[];
  callbacks: Array<(db: Db) => void>;
}

/**
 * A string as an SQL literal, the same text pg.escapeLiteral writes (quotes doubled; backslashes
 * doubled inside E'…' when there are any), built with two native replaces instead of a loop that
 * appends one character at a time: a mutation's audit values are hundreds of characters each,
 * where that loop took ~3 µs a string.
 */
function quotedLiteral(value: string): string {
  const quotesDoubled = value.includes("'") ? value.replace(/'/g, "''") : value;
  return value.includes('\\') ? ` E'${quotesDoubled.replace(/\\/g, '\\\\')}'` : `'${quotesDoubled}'`;
}

/** One writeAtCommit parameter as an SQL literal. */
function sqlLiteral(value: string | number | null | undefined, n: number): string {
  if (value === undefined) throw new Error(`writeAtCommit: no parameter $${n}`);
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('writeAtCommit: a number parameter must be finite');
    return String(value);
  }
  return quotedLiteral(value);
}

/** `$n` placeholders replaced by literals: only for writeAtCommit's simple statements (no dollar quoting in them). */
function inlineParams(sql: string, params: ReadonlyArray<string | number | null>): string {
  return sql.replace(/\$(\d+)/g, (_m, n: string) => sqlLiteral(params[Number(n) - 1], Number(n)));
}

/** Distinct texts one pool prepares at most: each costs every connection a parsed statement and a plan cache entry. */
const MAX_PREPARED_TEXTS = 400;
/** Texts counted while they wait for a second use; the count starts over above this, so one-off texts cannot grow it. */
const MAX_COUNTED_TEXTS = 4_000;

/**
 * A catch-all filter (`$1::uuid IS NULL OR project_id = $1`): which plan is right depends on which
 * parameters are null, and the generic plan PostgreSQL may settle on for a named statement turns
 * such a condition into a filter over whatever index it picked (GET /api/tasks/all's keyset pages
 * did that: every page read the listing from its start).
 */
const CATCH_ALL = /\$\d+(?:::[a-z_]+(?:\[\])?)?\s+IS\s+NULL\s+OR\b/i;

/**
 * Which statements go to the server as named prepared statements. A text sent with parameters for
 * the second time gets a name (a one-off text never does), up to MAX_PREPARED_TEXTS per pool; each
 * connection then parses it once and afterwards sends only Bind and Execute, and the server skips
 * parsing and analysis (and planning, once it settles on a generic plan). On this 2-core machine
 * that takes a point read or a conditional UPDATE from ~110 µs to ~45 µs a round trip.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly counted = new Map<string, number>();
  private readonly refused = new Set<string>();
  /** Never reused: a connection keeps a refused text's name parsed. */
  private issued = 0;

  constructor(
    private readonly enabled: boolean,
    /** Protocol-level names and SQL PREPARE names share one namespace per connection: each user has its own prefix. */
    private readonly prefix = 'fts',
  ) {}

  /** The name to send `sql` under, or undefined to send it unnamed (one-off texts, and texts with catch-all filters: planned per call). */
  nameOf(sql: string, paramCount: number): string | undefined {
    if (!this.enabled || paramCount === 0) return undefined;
    const name = this.names.get(sql);
    if (name !== undefined || this.issued >= MAX_PREPARED_TEXTS || this.refused.has(sql)) return name;
    if (CATCH_ALL.test(sql)) {
      // bounded like the counts: texts built per call must not grow it (a refused shape change is only retried, once)
      if (this.refused.size >= MAX_COUNTED_TEXTS) this.refused.clear();
      this.refused.add(sql);
      return undefined;
    }
    const uses = (this.counted.get(sql) ?? 0) + 1;
    if (uses < 2) {
      if (this.counted.size >= MAX_COUNTED_TEXTS) this.counted.clear();
      this.counted.set(sql, uses);
      return undefined;
    }
    this.counted.delete(sql);
    const assigned = `${this.prefix}_${this.issued++}`;
    this.names.set(sql, assigned);
    return assigned;
  }

  /**
   * A prepared text whose tables changed shape under it (a column added or dropped: the server
   * refuses the cached plan) is sent unnamed from then on.
   */
  refuse(sql: string): void {
    this.names.delete(sql);
    this.refused.add(sql);
  }
}

/** SQLSTATE 0A000 with this message: a prepared statement's result columns changed since it was parsed. */
function planChangedShape(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}

/** One statement through a client or the pool, named when `names` says so; a stale prepared shape is retried unnamed. */
async function runStatement(
  target: pg.Pool | pg.PoolClient,
  names: StatementNames,
  sql: string,
  params: readonly unknown[],
): Promise<pg.QueryResult> {
  const name = names.nameOf(sql, params.length);
  if (name === undefined) return target.query(sql, params as unknown[]);
  try {
    return await target.query({ name, text: sql, values: params as unknown[] });
  } catch (err) {
    if (!planChangedShape(err)) throw err;
    names.refuse(sql);
    // inside a transaction the failure aborted it, and the retry reports that instead
    return target.query(sql, params as unknown[]);
  }
}

/**
 * The statement names of writeAtCommit texts, and which of them each connection has PREPAREd. The
 * COMMIT message is simple protocol (literals, several statements), where a text would be parsed,
 * analysed and planned at every commit; `EXECUTE name(literals)` of a statement the connection
 * prepared skips that (a mutation's audit + snapshot statement is the costliest part of its commit
 * message to plan). PREPARE outlives the transaction that ran it, even one that rolls back, so what
 * a connection has prepared is known exactly.
 */
class CommitStatements {
  private readonly prepared = new WeakMap<pg.PoolClient, Set<string>>();
  private off = false;

  constructor(readonly names: StatementNames) {}

  /**
   * Behind a pooler that hands each transaction to any server connection (PgBouncer or another in
   * transaction mode), a statement PREPAREd in one transaction is missing in the next: the first
   * commit that finds its statement gone fails (SQLSTATE 26000), and from then on this pool sends
   * its commit writes inline. docs/adr/0006 says to set DB_PREPARED_STATEMENTS=0 there.
   */
  noteFailure(err: unknown): void {
    if ((err as { code?: string })?.code === '26000') this.off = true;
  }

  /** The statement to send with the COMMIT for one write through `client`, preparing it there first when needed. */
  async statementFor(client: pg.PoolClient, sql: string, params: ReadonlyArray<string | number | null>): Promise<string> {
    const name = this.off ? undefined : this.names.nameOf(sql, params.length);
    if (name === undefined) return inlineParams(sql, params);
    let done = this.prepared.get(client);
    if (!done) this.prepared.set(client, (done = new Set()));
    if (!done.has(name)) {
      await client.query(`PREPARE ${name} AS ${sql}`);
      done.add(name);
    }
    return `EXECUTE ${name}(${params.map((value, i) => sqlLiteral(value, i + 1)).join(', ')})`;
  }
}

class ClientDb implements Db {
  readonly inTransaction = true;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly commit: CommitWork,
    private readonly names: StatementNames,
    private readonly commitStatements: CommitStatements,
  ) {}

  async writeAtCommit(sql: string, params: ReadonlyArray<string | number | null>): Promise<void> {
    let statement: string;
    try {
      statement = await this.commitStatements.statementFor(this.client, sql, params);
    } catch (err) {
      throw translatePgError(err);
    }
    this.commit.writes.push(statement);
  }

  /** A savepoint that rolls back keeps its callbacks: they are wake-ups, harmless when nothing new committed. */
  afterCommit(callback: (db: Db) => void): void {
    this.commit.callbacks.push(callback);
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
    try {
      const result = await runStatement(this.client, this.names, sql, params);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    } catch (err) {
      throw translatePgError(err);
    }
  }

  /** Nested transactions become savepoints, so use cases compose. */
  async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    const name = `sp_${Math.random().toString(36).slice(2, 10)}`;
    await this.query(`SAVEPOINT ${name}`);
    const writesBefore = this.commit.writes.length;
    try {
      const result = await work(this);
      await this.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await this.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
      this.commit.writes.length = writesBefore;
      throw err;
    }
  }
}

export interface PgDbOptions {
  max?: number;
  applicationName?: string;
  /** Opening a connection, or waiting for a free one in the pool (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * Every statement's limit; 0 or unset means none. The server cancels a slow statement itself
   * (statement_timeout); a server that does not answer at all (stopped, network gone) is given up
   * on by the client a moment later (query_timeout), and that connection is discarded.
   */
  statementTimeoutMs?: number;
  /**
   * Send repeated statements as named prepared statements (default true). Off behind a pooler that
   * hands one session's statements to several server connections (PgBouncer in transaction mode,
   * whose 1.21 and later keep the protocol's named statements but not SQL PREPARE) or that pins a
   * connection to a client for them (RDS Proxy).
   */
  prepareStatements?: boolean;
}

/** How much longer than statement_timeout the client waits, so a live server's own cancel comes first. */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

/** The Db port over a pg connection pool. */
export class PgDb implements Db {
  readonly inTransaction = false;
  readonly pool: pg.Pool;
  private readonly names: StatementNames;
  private readonly commitStatements: CommitStatements;

  constructor(connectionString: string, options: PgDbOptions = {}) {
    const statementTimeout = options.statementTimeoutMs ?? 0;
    this.names = new StatementNames(options.prepareStatements ?? true);
    this.commitStatements = new CommitStatements(new StatementNames(options.prepareStatements ?? true, 'fw'));
    this.pool = new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      application_name: options.applicationName ?? 'task-server',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      ...(statementTimeout > 0 ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + CLIENT_TIMEOUT_MARGIN_MS } : {}),
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
    try {
      const result = await runStatement(this.pool, this.names, sql, params);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    } catch (err) {
      throw translatePgError(err);
    }
  }

  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return this.onConnection(async (client, tx) => {
      await client.query('BEGIN');
      return work(tx);
    });
  }

  /**
   * A transaction on one pooled connection: `begin` opens it and runs the work; the deferred writes
   * then go with the COMMIT, a failure rolls back, and a connection whose server stopped answering
   * is discarded.
   */
  private async onConnection<T>(begin: (client: pg.PoolClient, tx: Db) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw translatePgError(err);
    }
    let broken = false;
    const commit: CommitWork = { writes: [], callbacks: [] };
    try {
      const result = await begin(client, new ClientDb(client, commit, this.names, this.commitStatements));
      // One round trip: the deferred writes and the COMMIT as one simple-protocol message; a failing write aborts the lot.
      await client.query(commit.writes.length === 0 ? 'COMMIT' : `${commit.writes.join(';\n')};\nCOMMIT`).catch((err: unknown) => {
        this.commitStatements.noteFailure(err);
        throw err;
      });
      for (const callback of commit.callbacks) runCallback(callback, this);
      return result;
    } catch (err) {
      // a connection whose server stopped answering would hang the ROLLBACK too: discard it instead
      if (stoppedAnswering(err)) {
        broken = true;
      } else {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      throw translatePgError(err);
    } finally {
      client.release(broken);
    }
  }

  afterCommit(callback: (db: Db) => void): void {
    runCallback(callback, this);
  }

  async writeAtCommit(sql: string, params: ReadonlyArray<string | number | null>): Promise<void> {
    await this.query(sql, params);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
