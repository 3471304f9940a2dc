import { benchAppContext } from './bench/support';
import { startRunner } from './infra/http/runner';
const database = { url: 'postgres://postgres@127.0.0.1:5432/prof', dataDir: '/tmp/profdata', close: async () => {} };
const app = await benchAppContext(database);
const runner = await startRunner({ host: '127.0.0.1', port: 38999, largeBodyLimit: 1024 });
console.log('ready', runner.url);
setTimeout(async () => { await runner.close(); await app.close(); process.exit(0); }, 16000);
