/**
 * Secrets policy (spec 02, binding wherever data leaves the server: snapshots, legacy export, logs).
 * An object key matching this pattern keeps its key and loses its value to "[REDACTED]".
 * Underscores and dashes count as boundaries (db_password, access_token match); letters and
 * digits continue a word (keyboard, monkey do not).
 */
export const SECRET_KEY_PATTERN = /(?<![a-z0-9])(password|passwd|secret|token|api[_-]?key|apikey|auth[_-]?token|credential)(?![a-z0-9])/i;

export const REDACTED = '[REDACTED]';

/**
 * SECRET_KEY_PATTERN's words without its boundaries, as a PostgreSQL regular expression for `~*`:
 * it matches the JSON text of every value that holds a secret-named key at any depth (and of many
 * that do not: any mention of a word counts). A statement that writes a value's audit copy itself,
 * without the redaction pass, does so only where this does not match, since there the pass would
 * change nothing (JSON text escapes no letter, digit, `_` or `-`, so a key's word is in the text as
 * written).
 */
export const SECRET_WORDS_SQL = 'password|passwd|secret|token|api[_-]?key|apikey|credential';

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

/**
 * The inverse direction, for data coming back in (import): a redaction marker under a secret key
 * never overwrites a stored value. Where `stored` holds the key, its value is kept; where it does
 * not, the key is left out and its dotted path reported in `dropped`, so a marker is never stored
 * as if it were the secret.
 */
export function withStoredSecrets(incoming: unknown, stored: unknown, path = ''): { value: unknown; dropped: string[] } {
  const dropped: string[] = [];
  const walk = (value: unknown, live: unknown, at: string): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, Array.isArray(live) ? live[i] : undefined, `${at}[${i}]`));
    if (value === null || typeof value !== 'object') return value;
    const liveObject = live !== null && typeof live === 'object' && !Array.isArray(live) ? (live as Record<string, unknown>) : undefined;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      const keyPath = at ? `${at}.${key}` : key;
      if (inner === REDACTED && isSecretKey(key)) {
        if (liveObject && key in liveObject) out[key] = liveObject[key];
        else dropped.push(keyPath);
      } else {
        out[key] = walk(inner, liveObject?.[key], keyPath);
      }
    }
    return out;
  };
  return { value: walk(incoming, stored, path), dropped };
}
