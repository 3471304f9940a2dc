import * as z from 'zod';

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

export const queryBoolean = z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((v) => v === 'true' || v === '1');

/** Spec 01 conventions: `page` defaults to 1 and `limit` to 50. */
export function pageQuery(maxLimit: number) {
  return { page: queryInt(1, 1_000_000).default(1), limit: queryInt(1, maxLimit).default(50) };
}

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}
