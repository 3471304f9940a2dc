import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from '../../infra/db/timestamptz';

// the driver's own parser (postgres-date), as registered before infra/db/pg-db.ts puts ours in its place
const driver = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** A timestamptz as PostgreSQL prints it in a UTC session: microseconds with trailing zeros cut, none when whole. */
function utcText(year: number, month: number, day: number, hour: number, minute: number, second: number, micros: number): string {
  const fraction = micros ? `.${pad(micros, 6).replace(/0+$/, '')}` : '';
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}+00`;
}

const same = (text: string) => {
  const ours = parseTimestamptz(text);
  const theirs = driver(text);
  expect(ours instanceof Date ? ours.getTime() : ours, text).toEqual(theirs instanceof Date ? theirs.getTime() : theirs);
};

describe('parseTimestamptz', () => {
  it('reads every UTC text as the driver does, to the millisecond', () => {
    expect(driver).not.toBe(parseTimestamptz);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        fc.oneof(
          fc.constant(0),
          fc.integer({ min: 0, max: 999_999 }),
          fc.integer({ min: 1, max: 9 }).map((d) => d * 100_000),
        ),
        (y, mo, d, h, mi, s, us) => same(utcText(y, mo, d, h, mi, s, us)),
      ),
      { numRuns: 2000 },
    );
  });

  it('hands offsets, BC years, infinities and malformed text to the driver', () => {
    for (const text of [
      '2026-11-27 08:13:23.828+05:30',
      '2026-11-27 08:13:23-08',
      '2026-11-27 08:13:23.5+00 BC',
      '0099-01-01 00:00:00+00',
      '12026-01-01 00:00:00+00',
      'infinity',
      '-infinity',
      '2026-1x-27 08:13:23+00',
      '2026-11-27 08:13:23.+00',
    ]) {
      same(text);
    }
    expect(parseTimestamptz('2026-11-27 08:13:23.828123+00')).toEqual(new Date('2026-11-27T08:13:23.828Z'));
  });

  it('is the parser the database adapter registers', async () => {
    await import('../../infra/db/pg-db');
    expect(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text')).toBe(parseTimestamptz);
  });
});
