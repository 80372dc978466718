/**
 * The `codergen` handler: an agent works on the node's prompt (its `{key}`s filled from the
 * context), with the context the node's fidelity allows after it. In operator the agent is the
 * conversation's (its profile, tools and guardrails; see the caller). Its answer goes into the
 * context (`last_response`, `<node>.response`); a last line `Outcome: fail` (or `retry`,
 * `partial_success`) sets the node's outcome, success otherwise.
 */
import { applyFidelity } from '../routing/fidelity.ts';
import { asText, interpolate } from '../engine/pipeline-context.ts';
import type { OutcomeStatus, PipelineNode } from '../types.ts';
import type { NodeHandler } from './handler.ts';

/** What the agent is asked for one node. */
export interface CodergenRequest {
  node: PipelineNode;
  /** The whole input: the prompt, then the context. */
  prompt: string;
  signal: AbortSignal;
}

/** Asks an agent; resolves to its answer. */
export type CodergenBackend = (request: CodergenRequest) => Promise<{ text: string }>;

const outcomeLine = /^\s*outcome\s*:\s*(success|partial_success|fail|retry)\s*\.?\s*$/im;

/** The `codergen` handler over `backend`. */
export function createCodergenHandler(backend: CodergenBackend): NodeHandler {
  return {
    async execute(node, context, run) {
      const task = interpolate(node.prompt || node.label || node.name, context);
      const shown = contextLines(applyFidelity(run.fidelity, context.snapshot()));
      const prompt = [
        `[Pipeline "${run.pipeline.name}", step "${node.name}"${run.attempt > 1 ? `, attempt ${run.attempt}` : ''}]`,
        task,
        ...(shown.length > 0 ? ['', '[What the pipeline knows so far]', ...shown] : []),
        '',
        'When you are done, answer with what you did or found. If the step could not be done, end with a line "Outcome: fail" and why.',
      ].join('\n');
      const { text } = await backend({ node, prompt, signal: run.signal });
      const status = (outcomeLine.exec(text.split('\n').slice(-3).join('\n'))?.[1]?.toLowerCase() ?? 'success') as OutcomeStatus;
      return {
        status,
        output: text,
        failureReason: status === 'fail' ? text.slice(-2_000) : undefined,
        contextUpdates: { last_response: text, [`${node.name}.response`]: text },
      };
    },
  };
}

/** The context as `key: value` lines, the engine's own (`_...`) left out, the failures so far as a list. */
function contextLines(data: Record<string, unknown>): string[] {
  return Object.entries(data)
    .filter(([key]) => !key.startsWith('_'))
    .flatMap(([key, value]) => (key === 'feedback_history' && Array.isArray(value) ? feedbackLines(value) : [`${key}: ${asText(value)}`]));
}

/** `feedback_history` for the agent: each earlier attempt, what it tried and how it failed. */
function feedbackLines(history: unknown[]): string[] {
  const lines = ['feedback_history (earlier attempts that failed: do not repeat them):'];
  history.forEach((entry, index) => {
    const { node, error, after } = (entry ?? {}) as { node?: string; error?: string; after?: string };
    lines.push(`  ${index + 1}. ${after ? `tried: ${after.replace(/\s+/g, ' ')} -> ` : ''}${node ?? 'a step'} failed: ${(error ?? '').replace(/\s+/g, ' ')}`);
  });
  return lines;
}
