/** Usage and cost of a whole session, from the usage each answer recorded. */
import type { ModelInfo } from '../llm/catalog.ts';
import type { Cost } from '../llm/cost.ts';
import { addCost, computeCost, emptyCost } from '../llm/cost.ts';
import type { Usage } from '../llm/types.ts';
import { addUsage, emptyUsage } from '../llm/types.ts';
import type { SessionTree } from '../session/session-tree.ts';

/** Model calls, tokens and cost of a session. */
export interface SessionStats {
  calls: number;
  usage: Usage;
  cost: Cost;
}

/**
 * Sums every assistant message of the session (all branches: abandoned attempts were paid for
 * too), pricing each with `modelInfo`.
 */
export function sessionStats(tree: SessionTree, modelInfo: ModelInfo | undefined): SessionStats {
  let usage = emptyUsage();
  let cost = emptyCost();
  let calls = 0;
  for (const entry of tree.entries()) {
    if (entry.type !== 'message' || entry.message.role !== 'assistant' || !entry.message.usage) continue;
    calls++;
    usage = addUsage(usage, entry.message.usage);
    cost = addCost(cost, computeCost(entry.message.usage, modelInfo));
  }
  return { calls, usage, cost };
}
