import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && (e.name.endsWith('.ts') || e.name.endsWith('.tsx')))
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
  it('the console reaches the server only through the API: from the repository it imports console/, the generated API types and the plain-data statuses', () => {
    const packages = ['preact', 'preact/hooks', 'preact-iso', '@preact/signals', '@tanstack/virtual-core', 'openapi-fetch', 'eventsource-parser', 'uplot', 'uplot/dist/uPlot.min.css'];
    const files = sourceFiles('console/src');
    expect(files.length).toBeGreaterThan(10);
    const offences = files.flatMap((file) =>
      importsOf(file)
        .filter((m) => !(m.startsWith('console/') || m === 'mcp/task-server-paths' || m === 'core/tasks/statuses' || packages.includes(m)))
        .map((m) => `${file} imports ${m}`),
    );
    expect(offences).toEqual([]);
    // what the console bundles from core must itself import nothing (no zod, no ports in the browser)
    expect(importsOf('core/tasks/statuses.ts')).toEqual([]);
  });

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
    // The route table and the OpenAPI document built from it describe endpoints; they may use zod, never infra.
    const describing = (file: string) => file.startsWith('handlers/route-table/') || file.startsWith('handlers/openapi/') || file === 'handlers/routes.ts';
    const allowed = (m: string) =>
      m.startsWith('core/') || m.startsWith('handlers/middleware/') || m.startsWith('handlers/route-table/') || m.startsWith('handlers/openapi/') || m === 'handlers/routes';
    /*
     * The one exception, and why: the prom-client registry is carried only by the bundles that serve
     * GET /api/metrics (infra/metrics/observations.ts), so it cannot be a Deps member that every
     * Lambda bundle would build.
     */
    const exceptions = new Set(['handlers/health/get-metrics.ts imports infra/metrics/metrics']);
    const offences = sourceFiles('handlers')
      .filter((file) => !file.startsWith('handlers/middleware/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((m) => !allowed(m) && !(describing(file) && m === 'zod'))
          .map((m) => `${file} imports ${m}`),
      )
      .filter((offence) => !exceptions.has(offence));
    expect(offences).toEqual([]);
  });

  it('the ports own their types: core/ports imports nothing but itself and node builtins, so no domain module and its port import each other', () => {
    const offences = sourceFiles('core/ports').flatMap((file) =>
      importsOf(file)
        .filter((m) => !m.startsWith('core/ports/') && !m.startsWith('node:'))
        .map((m) => `${file} imports ${m}`),
    );
    expect(offences).toEqual([]);
  });

  it('core modules hold no adapter state: no module-level `let` outside constants', () => {
    const offences = sourceFiles('core').filter((file) => /^let\s/m.test(readFileSync(path.join(root, file), 'utf8')));
    expect(offences).toEqual([]);
  });
});
