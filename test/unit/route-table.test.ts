import { readFileSync } from 'node:fs';
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
  });

  it('keeps handler modules at handlers/<area>/<verb-noun>', () => {
    for (const route of routes) expect(route.handler).toMatch(/^[a-z-]+\/[a-z]+(-[a-z]+)+$/);
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
});
