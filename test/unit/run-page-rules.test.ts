import { describe, expect, it } from 'vitest';
import { priceSourceOf, runActionsOf } from '../../core/workflows/run-page';
import { knownRunStatuses, runStatusGroups } from '../../core/workflows/run-status';

/** The run page's and the runs table's rules (core/workflows/run-page.ts), as data over the transitions table. */
describe('runActionsOf: the buttons a run in each status offers', () => {
  it('offers Start only when queued, Cancel while not ended, Retry once ended without success', () => {
    for (const status of knownRunStatuses) {
      const actions = runActionsOf(status);
      expect(actions.includes('start'), status).toBe(status === 'queued');
      expect(actions.includes('cancel'), status).toBe((runStatusGroups.active as readonly string[]).includes(status));
      expect(actions.includes('retry'), status).toBe((runStatusGroups.reopenable as readonly string[]).includes(status));
    }
  });

  it('offers nothing on a status it does not know (shown verbatim, acted on by no route)', () => {
    expect(runActionsOf('archived-by-hand')).toEqual([]);
  });
});

describe('priceSourceOf: where a run’s cost comes from', () => {
  const run = (fields: Partial<Parameters<typeof priceSourceOf>[0]>) =>
    priceSourceOf({ cost_source: null, cost_estimate: null, input_tokens: null, output_tokens: null, ...fields });
  it('names the source a run records', () => {
    expect(run({ cost_source: 'table', cost_estimate: 1 })).toBe('table');
    expect(run({ cost_source: 'runtime', cost_estimate: 1 })).toBe('runtime');
    expect(run({ cost_source: 'reported', cost_estimate: 1 })).toBe('reported');
  });
  it('takes a cost kept before the source was recorded as the agent’s report', () => {
    expect(run({ cost_estimate: 0.5 })).toBe('reported');
  });
  it('calls tokens without a cost unpriced (never free), and a run without usage none', () => {
    expect(run({ input_tokens: 10 })).toBe('unpriced');
    expect(run({ output_tokens: 3 })).toBe('unpriced');
    expect(run({ input_tokens: 0, output_tokens: 0 })).toBe('none');
    expect(run({})).toBe('none');
  });
});
