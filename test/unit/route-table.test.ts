import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeKeyOf, routes } from '../../handlers/routes';
import { loadHandler } from '../../infra/http/load-handler';
import { RouteMatcher } from '../../infra/http/route-matcher';

describe('route table', () => {
  it('has no two routes with the same method and path', () => {
    const keys = routes.map(routeKeyOf);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('names handler modules that exist and export a handler function', async () => {
    for (const route of routes) {
      expect(typeof (await loadHandler(route.handler)), route.handler).toBe('function');
    }
    // importing every handler module transforms most of the code base: ~8 s alone, past 30 s on a loaded two-core machine
  }, 120_000);

  it('keeps handler modules at handlers/<area>/<verb-noun>', () => {
    for (const route of routes) expect(route.handler).toMatch(/^[a-z-]+\/[a-z]+(-[a-z]+)+$/);
  });

  it("keeps each row in its area's rows file, handlers/<area>/routes.ts, which a Lambda bundle registers alone", async () => {
    const areas = readdirSync('handlers', { withFileTypes: true }).filter(
      (e) => e.isDirectory() && readdirSync(`handlers/${e.name}`).includes('routes.ts'),
    );
    const rows = [];
    for (const { name } of areas) {
      const { routes: areaRows } = (await import(`../../handlers/${name}/routes.ts`)) as { routes: typeof routes };
      for (const row of areaRows) expect(row.handler.split('/')[0], `${routeKeyOf(row)} in handlers/${name}/routes.ts`).toBe(name);
      rows.push(...areaRows);
    }
    // the table is every area's rows, each once
    expect(new Set(rows)).toEqual(new Set(routes));
    expect(rows).toHaveLength(routes.length);
  });

  it('makes only /api/health and /api/auth/self public', () => {
    expect(routes.filter((r) => r.public).map((r) => r.path)).toEqual(['/api/health', '/api/auth/self']);
  });

  it('is what serverless.yml deploys (regenerate with npm run build)', () => {
    const yaml = readFileSync('serverless.yml', 'utf8');
    for (const route of routes.filter((r) => !r.runnerOnly)) {
      const [method, path] = routeKeyOf(route).split(' ');
      expect(yaml, `${method} ${path}`).toContain(`- httpApi: { method: ${method}, path: "${path}" }`);
    }
    expect(yaml.match(/- httpApi:/g)).toHaveLength(routes.filter((r) => !r.runnerOnly).length);
  });
});

describe('route matcher', () => {
  const matcher = new RouteMatcher([
    { method: 'GET', path: '/api/views/:id', handler: 'views/get-view' },
    { method: 'GET', path: '/api/views/board', handler: 'views/get-board' },
    { method: 'GET', path: '/api/snapshots/:entityType/:entityId', handler: 'history/list-entity-snapshots' },
    { method: 'GET', path: '/api/snapshots/:id/download', handler: 'snapshots/download-snapshot' },
    { method: 'POST', path: '/api/views', handler: 'views/create-view' },
  ]);

  it('prefers a static segment over a parameter wherever they differ', () => {
    expect(matcher.match('GET', '/api/views/board')?.route.handler).toBe('views/get-board');
    expect(matcher.match('GET', '/api/views/abc')?.route.handler).toBe('views/get-view');
    expect(matcher.match('GET', '/api/snapshots/abc/download')?.route.handler).toBe('snapshots/download-snapshot');
    expect(matcher.match('GET', '/api/snapshots/task/abc')?.route.handler).toBe('history/list-entity-snapshots');
  });

  it('decodes parameters and tolerates malformed percent-encoding', () => {
    expect(matcher.match('GET', '/api/views/a%20b')?.pathParameters).toEqual({ id: 'a b' });
    expect(matcher.match('GET', '/api/views/%ZZ')?.pathParameters).toEqual({ id: '%ZZ' });
  });

  it('matches by method and segment count only', () => {
    expect(matcher.match('DELETE', '/api/views/board')).toBeUndefined();
    expect(matcher.match('GET', '/api/views/a/b')).toBeUndefined();
    expect(matcher.methodsFor('/api/views')).toEqual(['POST']);
  });

  it('answers what comparing the path with every route of the method in specificity order answers, on the real table', () => {
    const real = new RouteMatcher(routes);
    // the reference: each route of the method, static segments first where two differ, compared segment by segment
    const rank = (path: string) =>
      path
        .split('/')
        .filter(Boolean)
        .map((s) => (s.startsWith(':') ? 1 : 0));
    const moreSpecific = (a: string, b: string) => {
      const [x, y] = [rank(a), rank(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    const reference = (method: string, path: string) => {
      const parts = path.split('/').filter(Boolean);
      const candidates = routes.filter((r) => r.method === method).sort((a, b) => moreSpecific(a.path, b.path));
      for (const route of candidates) {
        const segments = route.path.split('/').filter(Boolean);
        if (segments.length !== parts.length) continue;
        if (segments.every((s, i) => s.startsWith(':') || s === parts[i])) return route;
      }
      return undefined;
    };
    const words = [...new Set(routes.flatMap((r) => r.path.split('/').filter((s) => s && !s.startsWith(':'))))];
    const segment = fc.oneof(
      fc.constantFrom(...words),
      fc.constantFrom('abc', '42', 'a%20b', '%zz', 'Board', ''),
      fc.string({ maxLength: 4 }).map(encodeURIComponent),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get');
    // a route's path with each segment kept, or replaced by another word or value
    const nearRoute = fc
      .constantFrom(...routes.map((r) => r.path.split('/').filter(Boolean)))
      .chain((template) => fc.tuple(...template.map((s) => fc.oneof(fc.constant(s.startsWith(':') ? 'id-1' : s), segment))));
    fc.assert(
      fc.property(method, fc.oneof(fc.array(segment, { minLength: 0, maxLength: 6 }), nearRoute), (m, segments) => {
        const path = `/${segments.join('/')}`;
        expect(real.match(m, path)?.route, `${m} ${path}`).toBe(reference(m.toUpperCase(), path));
      }),
      { numRuns: 3000 },
    );
    // paths of real routes with their parameters filled in, each matched to itself
    for (const route of routes) {
      const path = route.path.replace(/:[^/]+/g, 'x1');
      expect(real.match(route.method, path)?.route, route.path).toBe(reference(route.method, path));
    }
  });
});
