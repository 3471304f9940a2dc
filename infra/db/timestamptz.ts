import pg from 'pg';

/** The driver's own timestamptz parser (postgres-date), for every text the fast path does not take. */
const driverParser = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

const ZERO = 48;

/** The number of the ASCII digits text[from, to), or -1 when one of them is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A timestamptz as the driver parses it, without its regular expressions for the text a UTC
 * session sends: `YYYY-MM-DD HH:MM:SS[.f…]+00` with a four-digit year from 0100. A dispatcher tick
 * parses tens of thousands of these, and the driver's two regular expressions per value were ~2% of it.
 * Any other text (offsets, BC, infinity, years below 100 or above 9999) goes to the driver's parser,
 * which a test holds this one equal to.
 */
export function parseTimestamptz(text: string): Date | number | null {
  const n = text.length;
  if (
    n >= 22 &&
    n <= 29 &&
    n !== 23 &&
    text.charCodeAt(n - 3) === 43 && // +
    text.charCodeAt(n - 2) === ZERO &&
    text.charCodeAt(n - 1) === ZERO &&
    text.charCodeAt(4) === 45 && // -
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 && // space
    text.charCodeAt(13) === 58 && // :
    text.charCodeAt(16) === 58 &&
    (n === 22 || text.charCodeAt(19) === 46) // . before 1 to 6 fraction digits
  ) {
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 7);
    const day = digits(text, 8, 10);
    const hour = digits(text, 11, 13);
    const minute = digits(text, 14, 16);
    const second = digits(text, 17, 19);
    // milliseconds: the fraction's first three digits, as the driver truncates it
    const fraction = n === 22 ? 0 : digits(text, 20, Math.min(n - 3, 23));
    const fractionDigits = n === 22 ? 3 : Math.min(n - 3, 23) - 20;
    const rest = n <= 26 ? 0 : digits(text, 23, n - 3);
    if (year >= 100 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0 && fraction >= 0 && rest >= 0) {
      const ms = fraction * (fractionDigits === 1 ? 100 : fractionDigits === 2 ? 10 : 1);
      return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
    }
  }
  return driverParser(text);
}
