/**
 * Secrets policy (spec 02, binding wherever data leaves the server: snapshots, legacy export, logs).
 * An object key matching this pattern keeps its key and loses its value to "[REDACTED]".
 * Underscores and dashes count as boundaries (db_password, access_token match); letters and
 * digits continue a word (keyboard, monkey do not).
 */
export const SECRET_KEY_PATTERN =
  /(?<![a-z0-9])(password|passwd|secret|token|api[_-]?key|apikey|auth[_-]?token|credential)(?![a-z0-9])/i;

export const REDACTED = '[REDACTED]';

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_PATTERN.test(key);
}

/** A deep copy of `value` with every secret-keyed value replaced, at any depth, inside arrays too. */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[key] = isSecretKey(key) ? REDACTED : redactSecrets(inner);
    }
    return out as T;
  }
  return value;
}
