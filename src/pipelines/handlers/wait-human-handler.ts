/**
 * The `wait.human` handler: a gate. It asks the run's Interviewer the node's question (its
 * `prompt`, else its `label`), offering one choice per outgoing edge, labelled with the edge's
 * `label` (its target's name when it has none); with no such edges it takes a typed answer. The
 * run is marked waiting while it asks. The choice routes the walk (that edge is taken); a typed
 * answer goes into the context as `<node>.answer` and `human.answer`. The node's `timeout` is how
 * long the person has; then its `default` attribute is the answer (without a default the gate
 * fails, saying nobody answered).
 */
import { interpolate } from '../engine/pipeline-context.ts';
import type { QuestionOption } from '../engine/interviewer.ts';
import type { NodeHandler } from './handler.ts';

/** The `wait.human` handler. */
export const waitHumanHandler: NodeHandler = {
  async execute(node, context, run) {
    const options: QuestionOption[] = run.pipeline.edges.filter((edge) => edge.source === node.name).map((edge) => ({ label: edge.label.trim() || edge.target, value: edge.target }));
    const choices = options.length > 1 || options.some((option) => option.label !== option.value) ? options : [];
    const question = {
      text: interpolate(node.prompt || node.label || `Go on with ${node.name}?`, context),
      stage: node.name,
      options: choices,
      timeoutSeconds: node.timeout,
      defaultAnswer: node.attributes.default,
    };
    run.emit({ type: 'gate_asked', runId: run.runId, node: node.name, question });
    await run.waiting(true);
    let answer;
    try {
      answer = await run.interviewer.ask(question, run.signal);
    } finally {
      await run.waiting(false);
    }
    run.emit({ type: 'gate_answered', runId: run.runId, node: node.name, answer });
    if (answer.timedOut && !question.defaultAnswer) return { status: 'fail', failureReason: `nobody answered "${question.text}" in time, and the gate has no default` };
    const updates = { [`${node.name}.answer`]: answer.value, 'human.answer': answer.value, ...(answer.by ? { [`${node.name}.answered_by`]: answer.by } : {}) };
    if (choices.length === 0) return { status: 'success', contextUpdates: updates };
    const chosen = answer.option ?? choices.find((option) => option.label.toLowerCase() === answer.value.trim().toLowerCase());
    if (!chosen) return { status: 'retry', failureReason: `"${answer.value}" is none of ${choices.map((option) => option.label).join(', ')}`, contextUpdates: updates };
    return { status: 'success', preferredLabel: chosen.label, suggestedNextIds: [chosen.value], contextUpdates: updates };
  },
};
