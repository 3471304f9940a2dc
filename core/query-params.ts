import * as z from 'zod';
import { parseInput } from './validation';

/**
 * Query-string values arrive as strings (repeated keys comma-joined). These schemas turn them
 * into numbers and booleans with the bounds of each endpoint, so `?limit=abc` is a 400 naming limit.
 */
export function queryInt(min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

export const queryBoolean = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

/** Spec 01 conventions: `page` defaults to 1 and `limit` to 50. */
export function pageQuery(maxLimit: number) {
  return { page: queryInt(1, 1_000_000).default(1), limit: queryInt(1, maxLimit).default(50) };
}

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}

/**
 * The keys the route's schemas named, by the query object that carried them. Query strings are
 * lenient (docs/api/original-front-end.md): an unknown key is dropped, not a 400, and the envelope names the
 * dropped keys in `X-Ignored-Params`. A WeakMap, so a request's query leaves nothing behind.
 */
const knownByQuery = new WeakMap<object, Set<string>>();

/** The keys of an object schema, looking through pipes; undefined for other schemas. */
function knownKeysOf(schema: z.ZodType): ReadonlySet<string> | undefined {
  if (schema instanceof z.ZodObject) return new Set(Object.keys(schema.shape));
  if (schema instanceof z.ZodPipe) return knownKeysOf(schema.in as z.ZodType);
  return undefined;
}

/**
 * Parses a query string with a route's schema after dropping the keys the schema does not name;
 * the keys it names stay validated. A query parsed by two schemas ignores only the keys neither names.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const given = (query ?? {}) as Record<string, unknown>;
  const known = knownKeysOf(schema);
  if (!known || typeof given !== 'object') return parseInput(schema, given, 'query');
  const seen = knownByQuery.get(given) ?? new Set<string>();
  for (const k of known) seen.add(k);
  knownByQuery.set(given, seen);
  return parseInput(schema, Object.fromEntries(Object.entries(given).filter(([k]) => known.has(k))), 'query');
}

/** The keys of this query object that no schema parsing it named, in the order given. */
export function ignoredQueryKeys(query: unknown): string[] {
  if (!query || typeof query !== 'object') return [];
  const known = knownByQuery.get(query);
  return known ? Object.keys(query).filter((k) => !known.has(k)) : [];
}
