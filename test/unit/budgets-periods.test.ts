import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { periodFromKey, periodWindow } from '../../core/budgets/periods';
import { evaluate } from '../../core/budgets/status';

describe('budget periods (UTC calendar)', () => {
  it('keys months YYYY-MM, days YYYY-MM-DD and weeks as ISO weeks YYYY-Www starting Monday', () => {
    const at = new Date('2026-11-20T23:59:59.999Z'); // a Friday
    expect(periodWindow('monthly', at)).toEqual({
      period: 'monthly',
      key: '2026-11',
      start: new Date('2026-11-01T00:00:00Z'),
      end: new Date('2026-12-01T00:00:00Z'),
    });
    expect(periodWindow('daily', at)).toEqual({
      period: 'daily',
      key: '2026-11-20',
      start: new Date('2026-11-20T00:00:00Z'),
      end: new Date('2026-11-21T00:00:00Z'),
    });
    expect(periodWindow('weekly', at)).toEqual({
      period: 'weekly',
      key: '2026-W47',
      start: new Date('2026-11-16T00:00:00Z'),
      end: new Date('2026-11-23T00:00:00Z'),
    });
  });

  it('gives the ISO week-year at year edges', () => {
    expect(periodWindow('weekly', new Date('2027-01-01T10:00:00Z')).key).toBe('2026-W53'); // Friday of 2026's week 53
    expect(periodWindow('weekly', new Date('2024-12-30T00:00:00Z')).key).toBe('2025-W01');
    expect(periodWindow('monthly', new Date('2026-12-31T23:59:59Z')).end).toEqual(new Date('2027-01-01T00:00:00Z'));
  });

  it('every instant lies in its own window, and its key names that window back', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1971-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }),
        fc.constantFrom('daily', 'weekly', 'monthly' as const),
        (at, period) => {
          const w = periodWindow(period, at);
          expect(w.start.getTime()).toBeLessThanOrEqual(at.getTime());
          expect(at.getTime()).toBeLessThan(w.end.getTime());
          expect(periodFromKey(period, w.key)).toEqual(w);
        },
      ),
    );
  });

  it('refuses keys of another form or naming no real period', () => {
    expect(periodFromKey('monthly', '2026-13')).toBeUndefined();
    expect(periodFromKey('monthly', '2026-11-01')).toBeUndefined();
    expect(periodFromKey('daily', '2026-02-30')).toBeUndefined();
    expect(periodFromKey('weekly', '2025-W53')).toBeUndefined(); // 2025 has 52 ISO weeks
    expect(periodFromKey('weekly', '2026-W53')?.start).toEqual(new Date('2026-12-28T00:00:00Z'));
  });
});

describe('budget status', () => {
  const usd = (action: 'warn' | 'pause_new_runs' | 'hard_stop') => ({ cap_usd: 10, cap_tokens: null, action_on_exceed: action });
  it('is inclusive at the cap: under just below, at or over from the cap on', () => {
    expect(evaluate(usd('hard_stop'), { usd: 9.999999, tokens: 0, runs: 1, unpriced_runs: 0 })).toMatchObject({
      status: 'under',
      atOrOver: false,
    });
    expect(evaluate(usd('hard_stop'), { usd: 10, tokens: 0, runs: 1, unpriced_runs: 0 })).toMatchObject({
      status: 'breached',
      pct_of_cap: 100,
    });
    expect(evaluate(usd('pause_new_runs'), { usd: 10.01, tokens: 0, runs: 1, unpriced_runs: 0 })).toMatchObject({
      status: 'breached',
      pct_of_cap: 100.1,
    });
    expect(evaluate(usd('warn'), { usd: 10, tokens: 0, runs: 1, unpriced_runs: 0 }).status).toBe('warned');
    // floating sums that are the cap count as the cap
    expect(evaluate(usd('warn'), { usd: 0.1 * 3 + 9.7, tokens: 0, runs: 3, unpriced_runs: 0 }).status).toBe('warned');
  });
  it('never shows a rounded-up 100 percent while under the cap', () => {
    expect(
      evaluate({ cap_usd: null, cap_tokens: 1_000_000, action_on_exceed: 'warn' }, { usd: 0, tokens: 999_999, runs: 1, unpriced_runs: 0 }),
    ).toMatchObject({
      status: 'under',
      pct_of_cap: 99.99,
    });
  });
});
