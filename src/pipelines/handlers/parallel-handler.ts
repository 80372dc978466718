/**
 * The `parallel` handler: each outgoing edge starts a branch, and the branches run side by side
 * (at most `max_parallel` at once, default 4), each on its own copy of the context, node after
 * node along their edges until they reach the `parallel.fan_in` node where they meet. Each
 * branch's context comes back under its first node's name (`<branch>.<key>`), its outcome in
 * `parallel.branches`; the walk goes on at the fan-in node. A branch that fails does not stop the
 * others: the fan-in decides.
 */
import type { PipelineContext } from '../engine/pipeline-context.ts';
import { selectEdge } from '../routing/select-edge.ts';
import { isSuccess, type OutcomeStatus, type PipelineNode } from '../types.ts';
import type { HandlerRun, NodeHandler } from './handler.ts';

/** Nodes one branch may run before it is stopped as looping. */
const maxBranchSteps = 100;

/** The `parallel` handler. */
export const parallelHandler: NodeHandler = {
  async execute(node, context, run) {
    const starts = run.pipeline.edges.filter((edge) => edge.source === node.name).map((edge) => edge.target);
    if (starts.length === 0) return { status: 'fail', failureReason: `parallel node "${node.name}" has no branches` };
    const limit = Math.max(1, Number.parseInt(node.attributes.max_parallel ?? '4', 10) || 4);
    const results: { node: string; status: OutcomeStatus; fanIn?: string; error?: string; context: PipelineContext }[] = [];
    const queue = [...starts];
    const worker = async () => {
      for (let start = queue.shift(); start !== undefined; start = queue.shift()) results.push({ node: start, ...(await runBranch(start, context.clone(), run)) });
    };
    await Promise.all(Array.from({ length: Math.min(limit, starts.length) }, worker));
    const fanIns = new Set(results.map((result) => result.fanIn).filter((name): name is string => name !== undefined));
    if (fanIns.size > 1) return { status: 'fail', failureReason: `the branches of "${node.name}" end at different fan-in nodes: ${[...fanIns].join(', ')}` };
    for (const result of results) context.mergeScope(result.context, result.node);
    const branches = results.map(({ node: branch, status, error }) => ({ node: branch, status, ...(error ? { error } : {}) }));
    const ok = results.filter((result) => isSuccess(result.status)).length;
    return {
      status: ok === results.length ? 'success' : ok > 0 ? 'partial_success' : 'fail',
      failureReason: ok === results.length ? undefined : `${results.length - ok} of ${results.length} branches failed`,
      nextNode: [...fanIns][0],
      contextUpdates: { 'parallel.branches': branches },
    };
  },
};

/** One branch: from `start` along its edges until a fan-in node (not run here) or an end. */
async function runBranch(start: string, context: PipelineContext, run: HandlerRun): Promise<{ status: OutcomeStatus; fanIn?: string; error?: string; context: PipelineContext }> {
  let name: string | undefined = start;
  let status: OutcomeStatus = 'success';
  for (let steps = 0; name !== undefined; steps++) {
    const node: PipelineNode | undefined = run.pipeline.nodes.get(name);
    if (!node) return { status: 'fail', error: `node "${name}" is not in the pipeline`, context };
    if (node.handlerType === 'parallel.fan_in') return { status, fanIn: node.name, context };
    if (node.isTerminal || steps >= maxBranchSteps) return { status: steps >= maxBranchSteps ? 'fail' : status, error: steps >= maxBranchSteps ? 'the branch did not reach a fan-in node' : undefined, context };
    try {
      const result = await run.runNode(node, context, run.signal);
      context.update({ ...(result.contextUpdates ?? {}), outcome: result.status, current_node: node.name });
      status = result.status;
      if (result.status === 'fail') return { status, error: result.failureReason, context };
      name = result.nextNode ?? selectEdge(run.pipeline, node.name, result, context)?.edge.target;
    } catch (error) {
      run.signal.throwIfAborted();
      return { status: 'fail', error: error instanceof Error ? error.message : String(error), context };
    }
  }
  return { status, context };
}
