import type { ModelInfo } from './catalog.ts';
import type { Usage } from './types.ts';

/** What a model call cost, in USD. */
export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** A zero cost. */
export function emptyCost(): Cost {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/**
 * Prices one call's usage with the catalog entry of its model. Reasoning tokens are part of
 * `usage.output` and are not billed again.
 *
 * @returns all zeros when the model is unknown (`info` undefined).
 */
export function computeCost(usage: Usage, info: ModelInfo | undefined): Cost {
  if (info === undefined) return emptyCost();
  const perToken = (tokens: number, pricePerMillion: number) => (tokens * pricePerMillion) / 1_000_000;
  const input = perToken(usage.input, info.price.input);
  const output = perToken(usage.output, info.price.output);
  const cacheRead = perToken(usage.cacheRead, info.price.cacheRead);
  const cacheWrite = perToken(usage.cacheWrite, info.price.cacheWrite);
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** Adds two costs. */
export function addCost(a: Cost, b: Cost): Cost {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
  };
}
