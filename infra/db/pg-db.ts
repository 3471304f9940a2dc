import pg from 'pg';
import { ConflictError, StorageUnavailableError, ValidationError } from '../../core/errors';
import type { Db, QueryResult } from '../../core/ports';

// bigint counts and numeric values arrive as strings by default; every such value here fits a double.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

/** SQLSTATE classes and socket errors that mean "the database is not there right now". */
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300']);

/**
 * Turns driver failures into domain errors, so that a constraint the core forgot to check
 * still answers 4xx, and an absent database answers 503, never 500.
 */
export function translatePgError(err: unknown): unknown {
  const e = err as { code?: string; message?: string; detail?: string; constraint?: string; column?: string };
  const code = e?.code;
  if (!code) {
    if (e?.message && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(e.message)) {
      return new StorageUnavailableError(`database unavailable: ${e.message}`);
    }
    return err;
  }
  if (unavailableCodes.has(code) || code.startsWith('08')) return new StorageUnavailableError(`database unavailable (${code})`);
  if (code === '23505') return new ConflictError(`duplicate value violates ${e.constraint ?? 'a unique rule'}`);
  if (code === '23503') return new ConflictError(`reference rule ${e.constraint ?? ''} violated: the referenced row does not exist or is still referenced`.replace('  ', ' '));
  if (code === '23514') return new ValidationError(`value breaks the rule ${e.constraint ?? '(check constraint)'}`);
  if (code === '23502') return new ValidationError(`${e.column ?? 'a required field'} must not be null`);
  if (code.startsWith('22')) return new ValidationError(`invalid value: ${e.message ?? code}`);
  return err;
}

class ClientDb implements Db {
  constructor(private readonly client: pg.PoolClient) {}

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
    try {
      const result = await this.client.query(sql, params as unknown[]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    } catch (err) {
      throw translatePgError(err);
    }
  }

  /** Nested transactions become savepoints, so use cases compose. */
  async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    const name = `sp_${Math.random().toString(36).slice(2, 10)}`;
    await this.query(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      await this.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await this.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
      throw err;
    }
  }
}

/** The Db port over a pg connection pool. */
export class PgDb implements Db {
  readonly pool: pg.Pool;

  constructor(connectionString: string, options: { max?: number; applicationName?: string } = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      application_name: options.applicationName ?? 'task-server',
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
    try {
      const result = await this.pool.query(sql, params as unknown[]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    } catch (err) {
      throw translatePgError(err);
    }
  }

  async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw translatePgError(err);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(new ClientDb(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw translatePgError(err);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
