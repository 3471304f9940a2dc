import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseModelPriceTable, priceUsage } from '../../core/costs/pricing';

const prices = parseModelPriceTable({
  'model-a': { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3 },
  'model-b': { input_per_million: 1, output_per_million: 2 },
});

describe('priceUsage', () => {
  it('prices input, output and cached input per million tokens', () => {
    expect(priceUsage(prices, { model_id: 'model-a', input_tokens: 1_000_000, output_tokens: 1_000_000, cached_tokens: 0 })).toBe(18);
    expect(priceUsage(prices, { model_id: 'model-a', input_tokens: 2_000_000, output_tokens: 0, cached_tokens: 1_000_000 })).toBe(3.3);
  });

  it('never counts cached tokens twice: they replace, not add to, input tokens', () => {
    const uncached = priceUsage(prices, { model_id: 'model-b', input_tokens: 1_000_000, output_tokens: 0 });
    const allCached = priceUsage(prices, { model_id: 'model-b', input_tokens: 1_000_000, output_tokens: 0, cached_tokens: 1_000_000 });
    expect(uncached).toBe(1);
    expect(allCached).toBe(1); // no cached price: cached input costs the input price, once
    // more cached than input is capped at the input count
    expect(priceUsage(prices, { model_id: 'model-a', input_tokens: 1_000_000, cached_tokens: 5_000_000 })).toBe(0.3);
  });

  it('leaves the cost null for an unknown model, no model or no tokens, never a guess', () => {
    expect(priceUsage(prices, { model_id: 'model-z', input_tokens: 10 })).toBeNull();
    expect(priceUsage(prices, { input_tokens: 10 })).toBeNull();
    expect(priceUsage(prices, { model_id: 'model-a' })).toBeNull();
    expect(priceUsage(prices, { model_id: 'toString', input_tokens: 10 })).toBeNull();
  });

  it('is never negative and never above the all-output-rate bound', () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.nat(1e9), fc.nat(2e9), (input, output, cached) => {
        const cost = priceUsage(prices, { model_id: 'model-a', input_tokens: input, output_tokens: output, cached_tokens: cached })!;
        expect(cost).toBeGreaterThanOrEqual(0);
        expect(cost).toBeLessThanOrEqual(((input + output) * 15) / 1e6 + 1e-6);
      }),
    );
  });

  it('refuses a malformed table, naming the model', () => {
    expect(() => parseModelPriceTable({ 'model-a': { input_per_million: -1, output_per_million: 1 } })).toThrow(/model-a/);
    expect(() => parseModelPriceTable({ m: { input_per_million: 1 } })).toThrow(/output_per_million/);
  });
});
