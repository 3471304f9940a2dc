import { describe, expect, it } from 'vitest';
import { decideUsage } from '../../core/workflows/usage-decision';

const open = (day: string) => ({ action: 'workflow-graph-open', timestamp: new Date(`${day}T12:00:00Z`) });
const up = (day: string) => ({ action: 'workflow-graph-feedback', timestamp: new Date(`${day}T12:00:00Z`), verdict: 'up' });
const days = (n: number) => Array.from({ length: n }, (_, i) => open(new Date(Date.UTC(2026, 7, 25 + i)).toISOString().slice(0, 10)));

describe('workflow graph usage decision rule', () => {
  it('go needs at least 8 render days and at least 3 positive rows', () => {
    expect(decideUsage([...days(8), up('2026-08-25'), up('2026-08-26'), up('2026-08-27')]).decision).toBe('go');
    expect(decideUsage([...days(7), up('2026-08-25'), up('2026-08-26'), up('2026-08-27')]).decision).toBe('middle');
    expect(decideUsage([...days(8), up('2026-08-25'), up('2026-08-26')]).decision).toBe('middle');
  });
  it('no-go is fewer than 4 render days and zero positive rows; feedback rows never count as render days', () => {
    expect(decideUsage(days(3)).decision).toBe('no-go');
    expect(decideUsage([...days(3), up('2026-08-30')]).decision).toBe('middle');
    expect(decideUsage(days(4)).decision).toBe('middle');
    expect(decideUsage([up('2026-08-25'), up('2026-08-26')]).render_days).toBe(0);
  });
});
