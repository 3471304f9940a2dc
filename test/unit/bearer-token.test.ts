import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerTokenOf, tokenMatches } from '../../core/auth/bearer-token';

describe('bearer token', () => {
  it('extracts the token of a Bearer header, any case of the scheme', () => {
    expect(bearerTokenOf('Bearer abc')).toBe('abc');
    expect(bearerTokenOf('bearer abc')).toBe('abc');
    expect(bearerTokenOf('  BEARER   abc  ')).toBe('abc');
    expect(bearerTokenOf('Basic abc')).toBeUndefined();
    expect(bearerTokenOf('Bearer')).toBeUndefined();
    expect(bearerTokenOf('Bearer a b')).toBeUndefined();
    expect(bearerTokenOf(undefined)).toBeUndefined();
  });

  it('matches exactly the configured token and nothing else', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (expected, other) => {
        expect(tokenMatches(expected, expected)).toBe(true);
        if (other !== expected) expect(tokenMatches(expected, other)).toBe(false);
        expect(tokenMatches(expected, undefined)).toBe(false);
      }),
    );
  });
});
