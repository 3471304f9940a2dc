import { config, ConfigError } from '../config';
import { stopEmbeddedPostgres } from './embedded-postgres';

/** `npm run db:stop [-- --force]`: stops the embedded PostgreSQL of DATA_DIR; one line either way. */
try {
  process.stdout.write(`${await stopEmbeddedPostgres(config().dataDir, { force: process.argv.includes('--force') })}\n`);
} catch (err) {
  process.stderr.write(`db:stop: ${err instanceof ConfigError ? `bad environment: ${err.message}` : (err as Error).message}\n`);
  process.exitCode = 1;
}
