import http from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ECHOED_HEADER_MAX_CHARS,
  ECHOED_ITEM_MAX_CHARS,
  echoedListHeader,
  percentEncodedForHeader,
  settableHeaders,
} from '../../handlers/middleware/header-values';

/** What node:http itself says of a header value: undefined when it can be set. */
function nodeRefuses(name: string, value: string): unknown {
  try {
    http.validateHeaderName(name);
    http.validateHeaderValue(name, value);
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('request data echoed in a response header', () => {
  it('is visible ASCII that node:http accepts, and decodes back to the text (any string, lone surrogates as U+FFFD)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const encoded = percentEncodedForHeader(text, 10_000);
        expect(encoded).toMatch(/^[!-~]*$/);
        expect(encoded).not.toContain(',');
        expect(nodeRefuses('x-ignored-params', encoded)).toBeUndefined();
        expect(decodeURIComponent(encoded)).toBe(Buffer.from(text, 'utf8').toString('utf8'));
      }),
      { seed: 4201, numRuns: 500 },
    );
  });

  it('encodes NUL, CR/LF, % and the list separator, and cuts a long key before an escape, never inside one', () => {
    expect(percentEncodedForHeader('a\u0000b\r\nc%d,e é')).toBe('a%00b%0D%0Ac%25d%2Ce%20%C3%A9');
    const cut = percentEncodedForHeader('k'.repeat(ECHOED_ITEM_MAX_CHARS - 2) + '\u0000');
    expect(cut).toBe('k'.repeat(ECHOED_ITEM_MAX_CHARS - 2));
  });

  it('lists as many whole keys as fit in the cap, in the order given', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 400 }), { maxLength: 30 }), (keys) => {
        const header = echoedListHeader(keys);
        expect(header.length).toBeLessThanOrEqual(ECHOED_HEADER_MAX_CHARS);
        expect(nodeRefuses('x-ignored-params', header)).toBeUndefined();
        // the longest run of keys from the first whose list fits
        const encoded = keys.map((k) => percentEncodedForHeader(k));
        let fit = 0;
        while (fit < encoded.length && encoded.slice(0, fit + 1).join(',').length <= ECHOED_HEADER_MAX_CHARS) fit++;
        expect(header).toBe(encoded.slice(0, fit).join(','));
      }),
      { seed: 4202, numRuns: 300 },
    );
  });
});

describe('headers that cannot be set', () => {
  it('are dropped and named, the others kept; every kept one node:http accepts', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 20 }), {
          maxKeys: 6,
        }),
        (headers) => {
          const dropped: string[] = [];
          const kept = settableHeaders(headers, (name) => dropped.push(name));
          for (const [name, value] of Object.entries(kept)) expect(nodeRefuses(name, value)).toBeUndefined();
          for (const name of dropped) expect(nodeRefuses(name, headers[name]!)).toBeDefined();
          expect(Object.keys(kept).length + dropped.length).toBe(Object.keys(headers).length);
        },
      ),
      { seed: 4203, numRuns: 500 },
    );
  });

  it('answers the same object when every header can be set', () => {
    const headers = { 'content-type': 'application/json', 'x-request-id': 'abc' };
    expect(settableHeaders(headers, () => undefined)).toBe(headers);
  });
});
