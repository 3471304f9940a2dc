import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && (e.name.endsWith('.ts') || e.name.endsWith('.tsx')))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

describe('layers (docs/ARCHITECTURE.md)', () => {
  it('the import graph keeps the rules of .dependency-cruiser.cjs (no circle; core apart from infra, handlers and adapters; ports own their types; handlers through Deps; the console through the API)', () => {
    // the same command as `npm run imports:check`, which CI runs
    const [, ...args] = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[
      'imports:check'
    ]!.split(' ');
    const cruiser = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
    const run = spawnSync(process.execPath, [cruiser, ...args, '--output-type', 'err'], { cwd: root, encoding: 'utf8' });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  }, 120_000);

  it('core never reads process.env', () => {
    expect(sourceFiles('core').filter((file) => readFileSync(path.join(root, file), 'utf8').includes('process.env'))).toEqual([]);
  });

  it('core modules hold no adapter state: no module-level `let` outside constants', () => {
    const offences = sourceFiles('core').filter((file) => /^let\s/m.test(readFileSync(path.join(root, file), 'utf8')));
    expect(offences).toEqual([]);
  });
});
