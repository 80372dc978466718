/**
 * The handlers that do nothing but let the walk go on: `start`, `exit`, and `conditional` (a
 * routing point whose outgoing edges' conditions decide), and `parallel.fan_in`, where branches
 * meet (their results are already in the context, under each branch's name).
 */
import type { NodeHandler } from './handler.ts';

/** Succeeds at once. */
export const passThroughHandler: NodeHandler = {
  async execute() {
    return { status: 'success' };
  },
};

/** Where parallel branches meet: succeeds, saying which branches came back and how. */
export const fanInHandler: NodeHandler = {
  async execute(node, context) {
    const branches = context.get('parallel.branches');
    const outcomes = Array.isArray(branches) ? (branches as { node: string; status: string }[]) : [];
    const failed = outcomes.filter((branch) => branch.status === 'fail');
    return {
      status: failed.length > 0 && failed.length === outcomes.length ? 'fail' : failed.length > 0 ? 'partial_success' : 'success',
      failureReason: failed.length > 0 ? `${failed.length} of ${outcomes.length} branches failed: ${failed.map((branch) => branch.node).join(', ')}` : undefined,
      contextUpdates: { [`${node.name}.branches`]: outcomes },
    };
  },
};
