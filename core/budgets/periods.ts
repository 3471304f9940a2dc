import type { BudgetPeriod } from './budget';

/** One calendar period of a budget, in UTC: [start, end) and its key. */
export interface PeriodWindow {
  period: BudgetPeriod;
  key: string;
  start: Date;
  end: Date;
}

const DAY_MS = 86_400_000;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** ISO 8601 week of a UTC instant: weeks start on Monday; week 1 holds the year's first Thursday. */
function isoWeek(at: Date): { year: number; week: number; monday: Date } {
  const day = dayStart(at);
  const weekday = (day.getUTCDay() + 6) % 7; // Monday 0 .. Sunday 6
  const monday = new Date(day.getTime() - weekday * DAY_MS);
  const thursday = new Date(monday.getTime() + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return { year, week, monday };
}

/**
 * The period containing `at`. Keys: daily YYYY-MM-DD, weekly ISO week YYYY-Www (Monday to Sunday),
 * monthly YYYY-MM.
 */
export function periodWindow(period: BudgetPeriod, at: Date): PeriodWindow {
  if (period === 'daily') {
    const start = dayStart(at);
    return { period, key: start.toISOString().slice(0, 10), start, end: new Date(start.getTime() + DAY_MS) };
  }
  if (period === 'weekly') {
    const { year, week, monday } = isoWeek(at);
    return { period, key: `${year}-W${pad(week)}`, start: monday, end: new Date(monday.getTime() + 7 * DAY_MS) };
  }
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  return {
    period,
    key: `${pad(year, 4)}-${pad(month + 1)}`,
    start: new Date(Date.UTC(year, month, 1)),
    end: new Date(Date.UTC(year, month + 1, 1)),
  };
}

const keyForms: Record<BudgetPeriod, RegExp> = {
  daily: /^(\d{4})-(\d{2})-(\d{2})$/,
  weekly: /^(\d{4})-W(\d{2})$/,
  monthly: /^(\d{4})-(\d{2})$/,
};

/** The period a key names, or undefined when the key is not of the period's form or names no real period. */
export function periodFromKey(period: BudgetPeriod, key: string): PeriodWindow | undefined {
  const m = keyForms[period].exec(key);
  if (!m) return undefined;
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])];
  let probe: Date;
  if (period === 'daily') probe = new Date(Date.UTC(a, b - 1, c));
  else if (period === 'monthly') probe = new Date(Date.UTC(a, b - 1, 1));
  else probe = new Date(Date.UTC(a, 0, 4) + (b - 1) * 7 * DAY_MS); // January 4th is always in ISO week 1
  const window = periodWindow(period, probe);
  return window.key === key ? window : undefined;
}

/** How each period's key is written, for error messages and docs. */
export const periodKeyForms: Record<BudgetPeriod, string> = { daily: 'YYYY-MM-DD', weekly: 'YYYY-Www (ISO week)', monthly: 'YYYY-MM' };
