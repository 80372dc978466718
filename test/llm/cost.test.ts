import { describe, expect, it } from 'vitest';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { addCost, computeCost, emptyCost } from '../../src/llm/cost.ts';

describe('computeCost', () => {
  it('prices each token class with the model prices', () => {
    const cost = computeCost({ input: 1_000_000, output: 200_000, cacheRead: 2_000_000, cacheWrite: 400_000 }, getModelInfo('sonnet'));
    expect(cost.input).toBeCloseTo(3, 10);
    expect(cost.output).toBeCloseTo(3, 10);
    expect(cost.cacheRead).toBeCloseTo(0.6, 10);
    expect(cost.cacheWrite).toBeCloseTo(1.5, 10);
    expect(cost.total).toBeCloseTo(8.1, 10);
  });

  it('does not bill reasoning tokens on top of output', () => {
    const info = getModelInfo('o3');
    const plain = computeCost({ input: 0, output: 1000, cacheRead: 0, cacheWrite: 0 }, info);
    const reasoning = computeCost({ input: 0, output: 1000, cacheRead: 0, cacheWrite: 0, reasoning: 800 }, info);
    expect(reasoning).toEqual(plain);
    expect(plain.total).toBeCloseTo(0.008, 10);
  });

  it('costs nothing for an unknown model', () => {
    expect(computeCost({ input: 5000, output: 5000, cacheRead: 0, cacheWrite: 0 }, undefined)).toEqual(emptyCost());
  });

  it('adds costs field by field', () => {
    const a = { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, total: 10 };
    expect(addCost(a, a)).toEqual({ input: 2, output: 4, cacheRead: 6, cacheWrite: 8, total: 20 });
    expect(addCost(emptyCost(), a)).toEqual(a);
  });
});
