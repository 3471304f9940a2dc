/**
 * Response headers that carry request data (docs/api/hardening.md, "Response headers built from
 * request data"). node:http throws on a header value holding a control character or a character
 * above U+00FF, and API Gateway refuses such a response, so what a request sent is percent-encoded
 * before it goes into a header, and a header that still cannot be set is dropped, not answered 500.
 */

/** At most this many characters of request data are echoed in one header. */
export const ECHOED_HEADER_MAX_CHARS = 1024;

/** One echoed item (a query key) is cut to this many characters, so one long key does not hide the rest. */
export const ECHOED_ITEM_MAX_CHARS = 256;

/**
 * The text as visible ASCII: every UTF-8 byte outside `!`..`~`, and `%` and `,` themselves (the
 * escape and the list separator), becomes `%XX`, so decoding gives the text back. A lone surrogate
 * is encoded as U+FFFD, as Buffer does. Cut to `maxChars` before an escape, never inside one.
 */
export function percentEncodedForHeader(text: string, maxChars = ECHOED_ITEM_MAX_CHARS): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const piece =
      byte > 0x20 && byte < 0x7f && byte !== 0x25 && byte !== 0x2c
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (out.length + piece.length > maxChars) break;
    out += piece;
  }
  return out;
}

/**
 * A comma-separated header naming request-supplied items, each percent-encoded; as many whole
 * items as fit in ECHOED_HEADER_MAX_CHARS, in the order given.
 */
export function echoedListHeader(items: readonly string[]): string {
  const listed: string[] = [];
  let length = -1; // the separators: one fewer than the items
  for (const item of items) {
    const encoded = percentEncodedForHeader(item);
    if (length + 1 + encoded.length > ECHOED_HEADER_MAX_CHARS) break;
    length += 1 + encoded.length;
    listed.push(encoded);
  }
  return listed.join(',');
}

/** RFC 9110 token characters: what a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What node:http accepts in a header value (its own check): tab, visible ASCII, space and U+0080–U+00FF. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The headers that can be set, for the runner and for what a Lambda returns: one that cannot (a
 * name that is no token, a value with a control character, CR/LF or a character above U+00FF) is
 * left out and named to `dropped`, so a good answer is never turned into a 500 by its headers.
 * Returns the same object when every header can be set (the common case allocates nothing).
 */
export function settableHeaders<T extends Record<string, unknown>>(headers: T, dropped: (name: string) => void): T {
  let bad: string[] | undefined;
  for (const name in headers) {
    const value = headers[name];
    if (!HEADER_NAME.test(name) || (value !== undefined && !HEADER_VALUE.test(String(value)))) (bad ??= []).push(name);
  }
  if (!bad) return headers;
  const kept = { ...headers };
  for (const name of bad) {
    delete kept[name];
    dropped(name);
  }
  return kept;
}
