import pg from 'pg';
import { migrate } from '../../infra/db/migrate';
import { PgDb } from '../../infra/db/pg-db';

/** Replaces the database name of a connection string. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** An empty database of its own on the admin URL's server, for a test that migrates it its own way. */
export async function createEmptyDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, database),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Creates a fresh template database holding the migrated schema; test files clone it
 * (CREATE DATABASE … TEMPLATE is much faster than migrating each time).
 */
export async function createTemplate(adminUrl: string): Promise<{ template: string; drop(): Promise<void> }> {
  const template = `tpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const db = new PgDb(withDatabase(adminUrl, template), { max: 1 });
  await migrate(db);
  await db.close();
  return {
    template,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      // Databases of test files that crashed before their own cleanup.
      const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`t_${template}_%`]);
      for (const row of rows) await c.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
      await c.end();
    },
  };
}
