/**
 * The graph questions validation asks: what a node can reach, what can reach a set of nodes, and
 * the cycles (strongly connected components). Plain adjacency lists in, no recursion (a generated
 * pipeline may be a chain thousands of nodes long).
 */

/** Successors (or predecessors) by node name. */
export type Adjacency = ReadonlyMap<string, readonly string[]>;

/** Every node reachable from `starts` (themselves included) following `next`. */
export function reachable(starts: Iterable<string>, next: Adjacency): Set<string> {
  const seen = new Set<string>();
  const stack: string[] = [];
  for (const start of starts) {
    if (!seen.has(start)) {
      seen.add(start);
      stack.push(start);
    }
  }
  while (stack.length > 0) {
    for (const successor of next.get(stack.pop()!) ?? []) {
      if (!seen.has(successor)) {
        seen.add(successor);
        stack.push(successor);
      }
    }
  }
  return seen;
}

/**
 * The strongly connected components of the graph with `nodes` and `next`, each in the order its
 * nodes appear in `nodes` (Tarjan's algorithm, with an explicit stack).
 */
export function stronglyConnectedComponents(nodes: readonly string[], next: Adjacency): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const order = new Map(nodes.map((node, position) => [node, position]));

  for (const root of nodes) {
    if (index.has(root)) continue;
    // Each frame: a node and how many of its successors have been looked at.
    const frames: Array<{ node: string; child: number }> = [{ node: root, child: 0 }];
    index.set(root, counter);
    lowLink.set(root, counter);
    counter++;
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const successors = next.get(frame.node) ?? [];
      if (frame.child < successors.length) {
        const successor = successors[frame.child++]!;
        if (!index.has(successor)) {
          index.set(successor, counter);
          lowLink.set(successor, counter);
          counter++;
          stack.push(successor);
          onStack.add(successor);
          frames.push({ node: successor, child: 0 });
        } else if (onStack.has(successor)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(successor)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        component.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
        components.push(component);
      }
    }
  }
  return components;
}

/** `next` turned around: the predecessors of each node. */
export function reverse(next: Adjacency): Map<string, string[]> {
  const previous = new Map<string, string[]>();
  for (const [node, successors] of next) {
    for (const successor of successors) {
      let list = previous.get(successor);
      if (!list) previous.set(successor, (list = []));
      list.push(node);
    }
  }
  return previous;
}
