import * as z from 'zod';
import { addDays, utcDayStart } from './usage';

export const MIN_WINDOW_DAYS = 1;
export const MAX_WINDOW_DAYS = 90;
export const DEFAULT_WINDOW_DAYS = 7;

/**
 * `days` of the cost endpoints: a number, clamped to 1..90 (spec 02: the endpoint clamps);
 * fractions round down; something that is not a number at all is a validation failure.
 */
export const windowDaysSchema = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/, 'must be a number of days'),
  ])
  .transform((v) => Math.floor(Number(v)))
  .transform((n) => Math.min(MAX_WINDOW_DAYS, Math.max(MIN_WINDOW_DAYS, n)))
  .default(DEFAULT_WINDOW_DAYS);

/** The last `days` UTC calendar days, today included: [start, end). */
export interface CostWindow {
  days: number;
  start: Date;
  end: Date;
  today: Date;
}

export function costWindow(now: Date, days: number): CostWindow {
  const today = utcDayStart(now);
  return { days, start: addDays(today, -(days - 1)), end: addDays(today, 1), today };
}
