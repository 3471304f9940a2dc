import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from '../../core/workflows/run-audit';

/** A column value as the driver hands it: null, strings, numbers (NaN and infinities too), booleans, dates (invalid too), JSON. */
const value = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', 'null', '2026-11-27T08:00:00.000Z'),
  fc.double(),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-01-01T00:00:00.004Z') }),
  fc.constant(new Date(Number.NaN)),
  fc.constantFrom([], {}, ['a'], { a: null }),
);

describe('sameJson (which run columns a tick audits as changed)', () => {
  it('says two values are the same exactly when they write the same JSON', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sameJson(a, b), `${String(a)} / ${String(b)}`).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 5000 },
    );
  });
});
