import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerTokenOf, claimOfBearer, tokenMatches } from '../../core/auth/bearer-token';

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

  it('reads a bearer the same way for every door: the operator, an agent token to look up, or refused', () => {
    const bearer = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc.string().map((s) => `fta_${s}`),
    );
    fc.assert(
      fc.property(fc.option(fc.string({ minLength: 1 }), { nil: undefined }), bearer, (configured, presented) => {
        const claim = claimOfBearer(configured, presented);
        if (configured !== undefined && presented === configured) expect(claim).toBe('operator');
        else if (presented?.startsWith('fta_')) expect(claim).toBe('agent_token');
        else expect(claim).toBe(configured ? 'refused' : 'operator');
      }),
    );
    // the operator's own token wins even when it is shaped like an agent's
    expect(claimOfBearer('fta_operator', 'fta_operator')).toBe('operator');
    expect(claimOfBearer(undefined, 'fta_x')).toBe('agent_token');
    expect(claimOfBearer('secret', undefined)).toBe('refused');
    expect(claimOfBearer(undefined, undefined)).toBe('operator');
  });
});
