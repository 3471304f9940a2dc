// `npm start`: build when dist/ is missing or older than the sources, then run the local runner.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (/\.(ts|tsx|css|html|mjs|sql)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

let builtAt = 0;
try {
  builtAt = statSync(path.join(root, 'dist/server.js')).mtimeMs;
} catch {
  // not built yet
}
const sourcesAt = Math.max(...['core', 'handlers', 'infra', 'mcp', 'console'].map((d) => newestSource(path.join(root, d))));
if (sourcesAt > builtAt) execFileSync(process.execPath, [path.join(root, 'esbuild.config.mjs')], { stdio: 'inherit' });

await import(path.join(root, 'dist/server.js'));
