/** What an agent object spent: its own model calls, and apart from them its background reviews. */
import type { ModelInfo } from '../llm/catalog.ts';
import type { Cost } from '../llm/cost.ts';
import { addCost, computeCost, emptyCost } from '../llm/cost.ts';
import type { Usage } from '../llm/types.ts';
import { addUsage, emptyUsage } from '../llm/types.ts';

/** Running totals of usage and cost. */
export class UsageBook {
  #usage: Usage = emptyUsage();
  #cost: Cost = emptyCost();
  #reviews = { reviews: 0, usage: emptyUsage(), cost: emptyCost() };

  /** Adds one model call's usage; returns its cost. */
  record(usage: Usage, modelInfo: ModelInfo | undefined): Cost {
    const cost = computeCost(usage, modelInfo);
    this.#usage = addUsage(this.#usage, usage);
    this.#cost = addCost(this.#cost, cost);
    return cost;
  }

  /** Adds one background review's usage (kept apart). */
  chargeReview(usage: Usage, cost: Cost): void {
    this.#reviews = { reviews: this.#reviews.reviews + 1, usage: addUsage(this.#reviews.usage, usage), cost: addCost(this.#reviews.cost, cost) };
  }

  get totals(): { usage: Usage; cost: Cost } {
    return { usage: this.#usage, cost: this.#cost };
  }

  get reviewTotals(): { reviews: number; usage: Usage; cost: Cost } {
    return this.#reviews;
  }
}
