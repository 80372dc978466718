/**
 * The `stack.manager_loop` handler: runs a child pipeline in sprints. Each sprint runs the
 * pipeline named by the node's `child` attribute to its end with a goal made of the node's prompt
 * (its `{key}`s from the context) and what the sprint before it left (its last answer); the loop
 * stops when a sprint finishes and the node's `until` condition holds on the sprint's final
 * context (with no `until`: when a sprint finishes), and fails after `max_sprints` (default 3).
 * The last sprint's context comes back as `<node>.<key>`, its number as `<node>.sprints`.
 */
import { interpolate } from '../engine/pipeline-context.ts';
import { PipelineContext } from '../engine/pipeline-context.ts';
import { evaluateCondition } from '../routing/conditions.ts';
import type { NodeHandler } from './handler.ts';

/** The `stack.manager_loop` handler. */
export const managerLoopHandler: NodeHandler = {
  async execute(node, context, run) {
    const child = node.attributes.child?.trim();
    if (!child) return { status: 'fail', failureReason: `node "${node.name}" names no child pipeline (child="NAME")` };
    if (!run.runChild) return { status: 'fail', failureReason: 'child pipelines cannot be looked up here' };
    const sprints = Math.max(1, Number.parseInt(node.attributes.max_sprints ?? '3', 10) || 3);
    const until = node.attributes.until?.trim();
    let previous = '';
    for (let sprint = 1; sprint <= sprints; sprint++) {
      const task = interpolate(node.prompt || context.getString('goal'), context);
      const goal = previous ? `${task}\n\nSprint ${sprint} of ${sprints}. The sprint before ended with:\n${previous}` : `${task}\n\nSprint 1 of ${sprints}.`;
      const result = await run.runChild(child, goal, run.signal);
      const childContext = new PipelineContext(result.context);
      previous = childContext.getString('last_response') || `${result.status}${result.error ? `: ${result.error}` : ''}`;
      const updates: Record<string, unknown> = { [`${node.name}.sprints`]: sprint };
      for (const [key, value] of Object.entries(result.context)) if (!key.startsWith('_')) updates[`${node.name}.${key}`] = value;
      context.update(updates);
      const met = result.status === 'finished' && (until ? evaluateCondition(until, childContext, { outcome: 'success' }) : true);
      if (met) return { status: 'success', output: previous, contextUpdates: { last_response: previous } };
    }
    return { status: 'fail', failureReason: `${child} did not get there in ${sprints} sprint${sprints === 1 ? '' : 's'}${until ? ` (until ${until})` : ''}; the last ended with: ${previous.slice(0, 500)}` };
  },
};
