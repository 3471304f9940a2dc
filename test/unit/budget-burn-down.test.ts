import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cumulativeDays, forecastOf, MIN_PACE_ELAPSED_MS } from '../../core/budgets/burn-down';
import { periodWindow } from '../../core/budgets/periods';

const DAY = 86_400_000;

/** A period of any kind, an instant inside it, spend so far and a cap. */
const periodAndSpend = fc
  .record({
    period: fc.constantFrom('daily', 'weekly', 'monthly' as const),
    at: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
    spent: fc.double({ min: 0, max: 1e7, noNaN: true }),
    cap: fc.double({ min: 0.01, max: 1e7, noNaN: true }),
  })
  .map(({ period, at, spent, cap }) => {
    const w = periodWindow(period, at);
    return { start: w.start, end: w.end, now: at, spent, cap };
  });

describe('the burn-down forecast', () => {
  it('carries the pace of the elapsed period to its end', () => {
    const f = forecastOf({
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-12-01T00:00:00Z'),
      now: new Date('2026-11-11T00:00:00Z'),
      spent: 20,
      cap: 100,
    });
    expect(f.pace_per_day).toBeCloseTo(2, 10);
    expect(f.at_end).toBeCloseTo(60, 10);
    expect(f.reaches_cap_at).toBeNull();
    const over = forecastOf({
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-12-01T00:00:00Z'),
      now: new Date('2026-11-11T00:00:00Z'),
      spent: 20,
      cap: 50,
    });
    // 30 more at 2 a day: 15 days later
    expect(over.reaches_cap_at).toBe('2026-11-26T00:00:00.000Z');
  });

  it('takes at least an hour as the elapsed time, so a period a minute old does not extrapolate its first run', () => {
    const start = new Date('2026-11-01T00:00:00Z');
    const f = forecastOf({ start, end: new Date('2026-11-02T00:00:00Z'), now: new Date(start.getTime() + 60_000), spent: 1, cap: 100 });
    expect(f.pace_per_day).toBeCloseTo(24, 10);
    expect(MIN_PACE_ELAPSED_MS).toBe(3_600_000);
  });

  it('never forecasts below what is spent, forecasts exactly the spend when the period is over, and grows with the spend', () => {
    fc.assert(
      fc.property(periodAndSpend, fc.double({ min: 0, max: 1e6, noNaN: true }), (p, more) => {
        const f = forecastOf(p);
        expect(f.at_end).toBeGreaterThanOrEqual(p.spent);
        expect(f.pace_per_day).toBeGreaterThanOrEqual(0);
        expect(forecastOf({ ...p, now: p.end }).at_end).toBeCloseTo(p.spent, 6);
        expect(forecastOf({ ...p, spent: p.spent + more }).at_end).toBeGreaterThanOrEqual(f.at_end);
      }),
    );
  });

  it('reaches the cap inside the period exactly when the forecast ends at or past it, and on the forecast line', () => {
    fc.assert(
      fc.property(periodAndSpend, (p) => {
        const f = forecastOf(p);
        if (f.reaches_cap_at === null) {
          expect(p.spent >= p.cap || f.at_end <= p.cap * (1 + 1e-9)).toBe(true);
          return;
        }
        const at = Date.parse(f.reaches_cap_at);
        expect(p.spent).toBeLessThan(p.cap);
        expect(at).toBeGreaterThanOrEqual(p.now.getTime());
        expect(at).toBeLessThan(p.end.getTime() + 1);
        expect(f.at_end).toBeGreaterThanOrEqual(p.cap * (1 - 1e-9));
        // spend at that instant on the forecast line is the cap (the instant is whole milliseconds)
        const perMs = f.pace_per_day / DAY;
        const onLine = p.spent + perMs * (at - p.now.getTime());
        expect(Math.abs(onLine - p.cap)).toBeLessThanOrEqual(Math.max(p.cap * 1e-9, perMs));
      }),
    );
  });
});

describe('the burn-down days', () => {
  it('lists every day of the period up to today with running totals, billed apart from the list-basis shadow', () => {
    const window = { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') };
    const days = cumulativeDays(
      window,
      new Date('2026-11-04T10:00:00Z'),
      [
        { day: '2026-11-02', billed: 1.1, shadow: 0.5, tokens: 100 },
        { day: '2026-11-04', billed: 2.2, shadow: 0, tokens: 50 },
      ],
      'usd',
    );
    expect(days).toEqual([
      { date: '2026-11-01', billed: 0, list: 0 },
      { date: '2026-11-02', billed: 1.1, list: 1.6 },
      { date: '2026-11-03', billed: 1.1, list: 1.6 },
      { date: '2026-11-04', billed: 3.3, list: 3.8 },
    ]);
    const tokens = cumulativeDays(
      window,
      new Date('2026-11-02T00:00:00Z'),
      [{ day: '2026-11-02', billed: 1, shadow: 1, tokens: 100 }],
      'tokens',
    );
    expect(tokens).toEqual([
      { date: '2026-11-01', billed: 0, list: 0 },
      { date: '2026-11-02', billed: 100, list: 100 },
    ]);
  });

  it('is never decreasing and ends at the sum of the days, for any days of any period', () => {
    fc.assert(
      fc.property(
        periodAndSpend,
        fc.array(
          fc.record({
            offset: fc.nat(30),
            billed: fc.double({ min: 0, max: 1000, noNaN: true }),
            shadow: fc.double({ min: 0, max: 1000, noNaN: true }),
          }),
          { maxLength: 20 },
        ),
        (p, raw) => {
          const seen = new Set<string>();
          const days = raw
            .map((d) => ({
              day: new Date(p.start.getTime() + d.offset * DAY).toISOString().slice(0, 10),
              billed: d.billed,
              shadow: d.shadow,
              tokens: 0,
            }))
            .filter((d) => d.day < p.now.toISOString().slice(0, 10) || d.day === p.now.toISOString().slice(0, 10))
            .filter((d) => Date.parse(d.day) < p.end.getTime() && !seen.has(d.day) && seen.add(d.day))
            .sort((a, b) => a.day.localeCompare(b.day));
          const out = cumulativeDays(p, p.now, days, 'usd');
          expect(out.length).toBe(Math.floor((Math.min(p.now.getTime(), p.end.getTime() - 1) - p.start.getTime()) / DAY) + 1);
          for (let i = 1; i < out.length; i++) {
            expect(out[i]!.billed).toBeGreaterThanOrEqual(out[i - 1]!.billed);
            expect(out[i]!.list).toBeGreaterThanOrEqual(out[i]!.billed);
          }
          expect(out.at(-1)!.billed).toBeCloseTo(
            days.reduce((s, d) => s + d.billed, 0),
            3,
          );
        },
      ),
    );
  });
});
