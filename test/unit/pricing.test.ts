import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costAt, parseModelPriceTable, priceAt, priceUsage } from '../../core/costs/pricing';

const AT = new Date('2026-06-01T12:00:00Z');

const prices = parseModelPriceTable({
  'model-a': { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3 },
  'model-b': { input_per_million: 1, output_per_million: 2 },
});

describe('priceUsage', () => {
  it('prices input, output and cached input per million tokens', () => {
    expect(priceUsage(prices, { model_id: 'model-a', input_tokens: 1_000_000, output_tokens: 1_000_000, cached_tokens: 0 }, AT)).toBe(18);
    expect(priceUsage(prices, { model_id: 'model-a', input_tokens: 2_000_000, output_tokens: 0, cached_tokens: 1_000_000 }, AT)).toBe(3.3);
  });

  it('never counts cached tokens twice: they replace, not add to, input tokens', () => {
    const uncached = priceUsage(prices, { model_id: 'model-b', input_tokens: 1_000_000, output_tokens: 0 }, AT);
    const allCached = priceUsage(prices, { model_id: 'model-b', input_tokens: 1_000_000, output_tokens: 0, cached_tokens: 1_000_000 }, AT);
    expect(uncached).toBe(1);
    expect(allCached).toBe(1); // no cached price: cached input costs the input price, once
    // more cached than input is capped at the input count
    expect(priceUsage(prices, { model_id: 'model-a', input_tokens: 1_000_000, cached_tokens: 5_000_000 }, AT)).toBe(0.3);
  });

  it('leaves the cost null for an unknown model, no model or no tokens, never a guess', () => {
    expect(priceUsage(prices, { model_id: 'model-z', input_tokens: 10 }, AT)).toBeNull();
    expect(priceUsage(prices, { input_tokens: 10 }, AT)).toBeNull();
    expect(priceUsage(prices, { model_id: 'model-a' }, AT)).toBeNull();
    expect(priceUsage(prices, { model_id: 'toString', input_tokens: 10 }, AT)).toBeNull();
  });

  it('is never negative and never above the all-output-rate bound', () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.nat(1e9), fc.nat(2e9), (input, output, cached) => {
        const cost = priceUsage(prices, { model_id: 'model-a', input_tokens: input, output_tokens: output, cached_tokens: cached }, AT)!;
        expect(cost).toBeGreaterThanOrEqual(0);
        expect(cost).toBeLessThanOrEqual(((input + output) * 15) / 1e6 + 1e-6);
      }),
    );
  });

  it('refuses a malformed table, naming the model', () => {
    expect(() => parseModelPriceTable({ 'model-a': { input_per_million: -1, output_per_million: 1 } })).toThrow(/model-a/);
    expect(() => parseModelPriceTable({ m: { input_per_million: 1 } })).toThrow(/output_per_million/);
  });

  it('refuses two prices of one model for the same day, and a bad day or billing mode, naming the field', () => {
    expect(() =>
      parseModelPriceTable({
        m: [
          { input_per_million: 1, output_per_million: 1 },
          { input_per_million: 2, output_per_million: 2 },
        ],
      }),
    ).toThrow(/m\.1\.effective_from: only one price may have no effective_from/);
    expect(() =>
      parseModelPriceTable({
        m: [
          { input_per_million: 1, output_per_million: 1, effective_from: '2026-01-01' },
          { input_per_million: 2, output_per_million: 2, effective_from: '2026-01-01' },
        ],
      }),
    ).toThrow(/2026-01-01 is listed twice/);
    expect(() => parseModelPriceTable({ m: { input_per_million: 1, output_per_million: 1, effective_from: '2026-13-01' } })).toThrow(
      /effective_from/,
    );
    expect(() => parseModelPriceTable({ m: { input_per_million: 1, output_per_million: 1, billing: 'free' } })).toThrow(
      /billing: must be metered or subscription/,
    );
  });
});

describe('price history', () => {
  const table = parseModelPriceTable({
    m: [
      { input_per_million: 4, output_per_million: 4, effective_from: '2026-03-01' },
      { input_per_million: 1, output_per_million: 1 },
      { input_per_million: 2, output_per_million: 2, effective_from: '2026-02-01', billing: 'subscription' },
    ],
  });

  it('prices usage at the price in effect on its UTC day, so a later price never rewrites earlier usage', () => {
    const usage = { model_id: 'm', input_tokens: 1_000_000 };
    expect(priceUsage(table, usage, new Date('2026-01-31T23:59:59Z'))).toBe(1);
    expect(priceUsage(table, usage, new Date('2026-02-01T00:00:00Z'))).toBe(2);
    expect(priceUsage(table, usage, new Date('2026-02-28T23:59:59Z'))).toBe(2);
    expect(priceUsage(table, usage, new Date('2026-03-01T00:00:00Z'))).toBe(4);
    expect(priceAt(table.m, new Date('2026-02-10T00:00:00Z'))?.billing).toBe('subscription');
  });

  it('has no price before the first effective_from when every price has one', () => {
    const later = parseModelPriceTable({ m: { input_per_million: 1, output_per_million: 1, effective_from: '2026-05-01' } });
    expect(priceUsage(later, { model_id: 'm', input_tokens: 10 }, new Date('2026-04-30T00:00:00Z'))).toBeNull();
    expect(priceUsage(later, { model_id: 'm', input_tokens: 1_000_000 }, new Date('2026-05-01T00:00:00Z'))).toBe(1);
  });
});

describe('cache writes', () => {
  const price = { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3, cache_write_per_million: 3.75 };

  it('prices cache reads and cache writes at their rates instead of the input rate', () => {
    expect(costAt(price, { input_tokens: 3_000_000, cached_tokens: 1_000_000, cache_write_tokens: 1_000_000 })).toBe(3 + 0.3 + 3.75);
    // without a cache-write price, written tokens cost the input price
    expect(costAt({ input_per_million: 3, output_per_million: 15 }, { input_tokens: 1_000_000, cache_write_tokens: 1_000_000 })).toBe(3);
  });

  it('never counts a token at two rates: reads and writes beyond the input are capped', () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.nat(2e9), fc.nat(2e9), (input, cached, written) => {
        const cost = costAt(price, { input_tokens: input, cached_tokens: cached, cache_write_tokens: written })!;
        expect(cost).toBeGreaterThanOrEqual((input * 0.3) / 1e6 - 1e-6);
        expect(cost).toBeLessThanOrEqual((input * 3.75) / 1e6 + 1e-6);
      }),
    );
  });
});
