import * as z from 'zod';
import { ValidationError, type ValidationIssue } from './errors';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-bytes';

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

/**
 * The deepest nesting of objects and arrays a request body may have. Redaction, canonical JSON,
 * zod and hashing all walk values recursively; a body nested thousands deep would exhaust the
 * stack in one of them, so it is refused before any of them runs. Real bodies (a restore
 * envelope around rows holding metadata included) stay far below.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether JSON text nests objects and arrays deeper than `max`, found in one pass without
 * parsing or recursion. Bytes and UTF-16 code units both work: every structural character is
 * ASCII, and no multi-byte UTF-8 sequence holds an ASCII byte.
 */
export function jsonNestsDeeperThan(text: string | Uint8Array, max = MAX_JSON_DEPTH): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}
