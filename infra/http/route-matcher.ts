import type { HttpMethod, Route } from '../../handlers/routes';

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
 * route wins, so /api/views/board is never taken for /api/views/:id.
 */
export class RouteMatcher {
  private readonly byMethod = new Map<string, Compiled[]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const list = this.byMethod.get(route.method) ?? [];
      list.push(compile(route));
      this.byMethod.set(route.method, list);
    }
    for (const list of this.byMethod.values()) list.sort(specificity);
  }

  match(method: string, path: string): RouteMatch | undefined {
    const candidates = this.byMethod.get(method.toUpperCase() as HttpMethod);
    if (!candidates) return undefined;
    const parts = path.split('/').filter(Boolean);
    for (const candidate of candidates) {
      if (candidate.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let undecodable: string | undefined;
      const ok = candidate.segments.every((segment, i) => {
        if ('literal' in segment) return segment.literal === parts[i];
        const decoded = decode(parts[i]!);
        if (decoded === undefined) undecodable ??= segment.param;
        params[segment.param] = decoded ?? parts[i]!;
        return true;
      });
      if (ok) return { route: candidate.route, pathParameters: params, ...(undecodable ? { undecodable } : {}) };
    }
    return undefined;
  }

  /** Methods that serve a path (for the 404 message and CORS preflight). */
  methodsFor(path: string): string[] {
    return [...this.byMethod.keys()].filter((m) => this.match(m, path));
  }
}
