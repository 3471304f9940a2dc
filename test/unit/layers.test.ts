import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** Every module a file imports, resolved to a repository path when relative. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms)].map(([, spec]) =>
    spec!.startsWith('.') ? path.relative(root, path.resolve(root, path.dirname(file), spec!)) : spec!,
  );
}

describe('layers (docs/ARCHITECTURE.md)', () => {
  it('core imports no pg, node:http, middy, infra or handlers, and never reads process.env', () => {
    const offences = sourceFiles('core').flatMap((file) => [
      ...importsOf(file)
        .filter((m) => m === 'pg' || m === 'node:http' || m.startsWith('@middy/') || m.startsWith('infra/') || m.startsWith('handlers/'))
        .map((m) => `${file} imports ${m}`),
      ...(readFileSync(path.join(root, file), 'utf8').includes('process.env') ? [`${file} reads process.env`] : []),
    ]);
    expect(offences).toEqual([]);
  });

  it('a handler imports only core, handlers/middleware and the route table: every adapter reaches it through Deps', () => {
    const offences = sourceFiles('handlers')
      .filter((file) => !file.startsWith('handlers/middleware/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((m) => !m.startsWith('core/') && !m.startsWith('handlers/middleware/') && !m.startsWith('handlers/route-table/') && m !== 'handlers/routes')
          .map((m) => `${file} imports ${m}`),
      );
    expect(offences).toEqual([]);
  });

  it('core modules hold no adapter state: no module-level `let` outside constants', () => {
    const offences = sourceFiles('core').filter((file) => /^let\s/m.test(readFileSync(path.join(root, file), 'utf8')));
    expect(offences).toEqual([]);
  });
});
