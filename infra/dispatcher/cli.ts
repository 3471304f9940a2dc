import { dispatcherPass } from '../../core/workflows/dispatcher';
import { createAppContext } from '../app-context';
import { config, ConfigError } from '../config';

/**
 * `node dist/dispatcher.js --once`: one dispatcher tick from a shell, against the same database the
 * server uses (DATABASE_URL, else the embedded PostgreSQL of DATA_DIR); prints the tick summary as JSON.
 */
async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0] !== '--once') {
    process.stderr.write('usage: node dist/dispatcher.js --once   (runs one dispatcher tick and prints its summary)\n');
    return 2;
  }
  let cfg;
  try {
    cfg = config();
  } catch (err) {
    process.stderr.write(`dispatcher cannot start: ${err instanceof ConfigError ? `bad environment: ${err.message}` : String(err)}\n`);
    return 1;
  }
  const ctx = await createAppContext(cfg, { reconnectIntervalMs: 60_000 });
  try {
    if (ctx.deps.storage.mode !== 'database') {
      process.stderr.write(`dispatcher cannot tick: ${ctx.deps.storage.reason}\n`);
      return 1;
    }
    const summary = await dispatcherPass(ctx.deps, { source: 'cli' });
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`dispatcher tick failed: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await ctx.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`dispatcher failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
