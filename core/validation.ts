import * as z from 'zod';
import { ValidationError, type ValidationIssue } from './errors';

function issuesOf(error: z.ZodError, what: string): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || what,
    message: issue.message,
  }));
}

/**
 * Validates untrusted input against a schema. On failure the error message names every
 * offending field, so a 400 says what is wrong without the client reading `details`.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = 'request'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = issuesOf(result.error, what);
  const summary = details.map((d) => `${d.path}: ${d.message}`).join('; ');
  throw new ValidationError(`invalid ${what}: ${summary}`, details);
}

export const uuidSchema = z.uuid({ message: 'must be a UUID' });

/** Validates a path parameter that must be a UUID; a malformed id is a 400, never a database error. */
export function parseId(value: unknown, name = 'id'): string {
  return parseInput(uuidSchema, value, name);
}

/**
 * A body schema that also takes other clients' names for some fields (`{notes: 'note'}`): an alias
 * is renamed to its field when the field is absent and dropped when both are given, so the
 * canonical name wins. Unknown keys stay refused by the strict schema behind it.
 */
export function withAliases<S extends z.ZodType>(aliases: Readonly<Record<string, string>>, schema: S) {
  return z.preprocess((body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
    const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const [alias, field] of Object.entries(aliases)) {
      if (!(alias in out)) continue;
      if (!(field in out)) out[field] = out[alias];
      delete out[alias];
    }
    return out;
  }, schema);
}

/** A JSON object (not an array, not null). */
export const jsonObjectSchema = z.record(z.string(), z.unknown());
