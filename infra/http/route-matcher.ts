import type { HttpMethod, Route } from '../../handlers/route';

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
  /** The parameter whose segment is not valid percent-encoding (`%`, `%zz`, `%C0%AE`, …): the caller answers 400. */
  undecodable?: string;
}

interface Compiled {
  route: Route;
  segments: Array<{ literal: string } | { param: string }>;
}

function compile(route: Route): Compiled {
  const segments = route.path
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
  return { route, segments };
}

/**
 * Static segments beat parameters at the first position where two routes differ. Ties on the
 * common prefix order by length, so the comparison is a total order and sort() keeps the rule
 * whatever else the table holds (/api/snapshots/:id/download before /api/snapshots/:a/:b).
 */
function specificity(a: Compiled, b: Compiled): number {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const sa = 'literal' in a.segments[i]! ? 0 : 1;
    const sb = 'literal' in b.segments[i]! ? 0 : 1;
    if (sa !== sb) return sa - sb;
  }
  return a.segments.length - b.segments.length;
}

/** The one place path parameters are decoded, for every route; undefined when the escapes are malformed. */
function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Matches request paths against the route table the way API Gateway does: the most specific
 * route wins, so /api/views/board is never taken for /api/views/:id. A path of literals only is
 * one table lookup (a route of literals matching a path beats every route with a parameter);
 * other paths are compared, literals first and without allocating, with the routes of their
 * method and segment count, most specific first, and only the match decodes its parameters.
 */
export class RouteMatcher {
  private readonly methods: string[] = [];
  /** `METHOD /canonical/path` of every route without parameters. */
  private readonly literalRoutes = new Map<string, Route>();
  /** `METHOD segmentCount`: the routes of that shape, most specific first. */
  private readonly byShape = new Map<string, Compiled[]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const compiled = compile(route);
      if (!this.methods.includes(route.method)) this.methods.push(route.method);
      if (compiled.segments.every((segment) => 'literal' in segment)) {
        this.literalRoutes.set(
          `${route.method} /${compiled.segments.map((segment) => (segment as { literal: string }).literal).join('/')}`,
          route,
        );
      }
      const shape = `${route.method} ${compiled.segments.length}`;
      const list = this.byShape.get(shape) ?? [];
      list.push(compiled);
      this.byShape.set(shape, list);
    }
    for (const list of this.byShape.values()) list.sort(specificity);
  }

  match(method: string, path: string): RouteMatch | undefined {
    const upper = method.toUpperCase();
    const literal = this.literalRoutes.get(`${upper} ${path}`);
    if (literal) return { route: literal, pathParameters: {} };
    const parts = path.split('/').filter(Boolean);
    const candidates = this.byShape.get(`${upper} ${parts.length}`);
    if (!candidates) return undefined;
    for (const candidate of candidates) {
      if (!literalsMatch(candidate, parts)) continue;
      const params: Record<string, string> = {};
      let undecodable: string | undefined;
      candidate.segments.forEach((segment, i) => {
        if ('literal' in segment) return;
        const decoded = decode(parts[i]!);
        if (decoded === undefined) undecodable ??= segment.param;
        params[segment.param] = decoded ?? parts[i]!;
      });
      return { route: candidate.route, pathParameters: params, ...(undecodable ? { undecodable } : {}) };
    }
    return undefined;
  }

  /** Methods that serve a path (for the 404 message and CORS preflight). */
  methodsFor(path: string): string[] {
    return this.methods.filter((m) => this.match(m, path));
  }
}

function literalsMatch(candidate: Compiled, parts: readonly string[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const segment = candidate.segments[i]!;
    if ('literal' in segment && segment.literal !== parts[i]) return false;
  }
  return true;
}
