/**
 * Goal gates: what must hold before a run may leave by an exit (the spec's `GoalGate`: required
 * nodes and context conditions). Every `goal_gate=true` node must have succeeded, and its
 * `goal_condition` (when it has one) must hold on the context; the graph's `goal_condition` must
 * hold too. The first that does not sends the run back to a retry target (the gate node's, else
 * the graph's), and the context's `_goal_gate_unmet` says what is missing.
 */
import { goalConditionAttribute } from '../graph/lint-rules.ts';
import { evaluateCondition } from '../routing/conditions.ts';
import { isSuccess, type ContextView, type OutcomeStatus, type Pipeline, type PipelineNode } from '../types.ts';

/** A requirement not met: what is missing, and the node whose retry targets apply (none for the graph's condition). */
export interface UnmetGoal {
  description: string;
  node?: PipelineNode;
}

/** Every requirement not met, in the order of the file (the nodes', then the graph's condition). */
export function unmetGoals(pipeline: Pipeline, outcomes: Readonly<Record<string, OutcomeStatus>>, context: ContextView): UnmetGoal[] {
  const unmet: UnmetGoal[] = [];
  for (const node of pipeline.nodes.values()) {
    if (!node.goalGate) continue;
    const outcome = outcomes[node.name];
    if (!outcome || !isSuccess(outcome)) {
      unmet.push({ description: `"${node.name}" has not succeeded`, node });
      continue;
    }
    const condition = node.attributes[goalConditionAttribute];
    if (condition && !holds(condition, context)) unmet.push({ description: `"${node.name}": ${condition} does not hold`, node });
  }
  const condition = pipeline.attributes[goalConditionAttribute];
  if (condition && !holds(condition, context)) unmet.push({ description: `the goal condition ${condition} does not hold` });
  return unmet;
}

/** A condition that cannot be read (validation refuses those) counts as not holding. */
function holds(condition: string, context: ContextView): boolean {
  try {
    return evaluateCondition(condition, context);
  } catch {
    return false;
  }
}
