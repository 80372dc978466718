/**
 * The `codergen` handler: an agent works on the node's prompt (its `{key}`s filled from the
 * context), with the context the node's fidelity allows after it. In operator the agent is the
 * conversation's (its profile, tools and guardrails; see the caller). Its answer goes into the
 * context (`last_response`, `<node>.response`); a last line `Outcome: fail` (or `retry`,
 * `partial_success`) sets the node's outcome, success otherwise.
 */
import { applyFidelity } from '../routing/fidelity.ts';
import { asText, interpolate } from '../engine/pipeline-context.ts';
import { addUsage, type NodeUsage, type OutcomeStatus, type PipelineNode } from '../types.ts';
import type { NodeHandler } from './handler.ts';
import { outputsSchema, parseOutputs } from '../node-outputs.ts';

/** What the agent is asked for one node. */
export interface CodergenRequest {
  node: PipelineNode;
  /** The whole input: the prompt, then the context. */
  prompt: string;
  signal: AbortSignal;
}

/** Asks an agent; resolves to its answer (and what its calls used, when known). */
export type CodergenBackend = (request: CodergenRequest) => Promise<{ text: string; usage?: NodeUsage }>;

/**
 * Reads an object of `schema` out of `answer` (a structured-output call; see `node-outputs.ts`);
 * resolves to it (and what the call used, when known).
 */
export type OutputReader = (request: { node: PipelineNode; answer: string; schema: ReturnType<typeof outputsSchema>; signal: AbortSignal }) => Promise<{ values: Record<string, unknown>; usage?: NodeUsage }>;

const outcomeLine = /^\s*outcome\s*:\s*(success|partial_success|fail|retry)\s*\.?\s*$/im;

/** The `codergen` handler over `backend` (and `readOutputs`, for nodes that declare `outputs`). */
export function createCodergenHandler(backend: CodergenBackend, readOutputs?: OutputReader): NodeHandler {
  return {
    async execute(node, context, run) {
      const declared = node.attributes.outputs?.trim() ? parseOutputs(node.attributes.outputs) : undefined;
      const template = node.prompt || node.label || node.name;
      const task = interpolate(template, context);
      const shown = contextLines(applyFidelity(run.fidelity, context.snapshot()), namedKeys(template));
      const prompt = [
        `[Pipeline "${run.pipeline.name}", step "${node.name}"${run.attempt > 1 ? `, attempt ${run.attempt}` : ''}]`,
        task,
        ...(shown.length > 0 ? ['', '[What the pipeline knows so far]', ...shown] : []),
        '',
        'When you are done, answer with what you did or found. If the step could not be done, end with a line "Outcome: fail" and why.',
      ].join('\n');
      // Written to the run folder before the call, so a run killed during it shows what was asked.
      run.emit({ type: 'node_prompt', runId: run.runId, node: node.name, attempt: run.attempt, prompt });
      const { text, usage } = await backend({ node, prompt, signal: run.signal });
      if (declared) {
        if (!readOutputs) return { status: 'fail', failureReason: `node "${node.name}" declares outputs, which cannot be read here`, usage };
        // The outcome and the declared facts, read from the answer in one structured call.
        const reading = await readOutputs({ node, answer: text, schema: outputsSchema(declared), signal: run.signal });
        const read = reading.values;
        const facts = Object.fromEntries(declared.map((output) => [output.name, read[output.name]]));
        const outcome = read.outcome as OutcomeStatus;
        return {
          status: outcome,
          output: text,
          failureReason: outcome === 'success' ? undefined : String(read.reason ?? ''),
          notes: String(read.reason ?? ''),
          usage: addUsage(usage, reading.usage),
          contextUpdates: { last_response: text, [`${node.name}.response`]: text, ...facts, ...Object.fromEntries(Object.entries(facts).map(([key, value]) => [`${node.name}.${key}`, value])) },
        };
      }
      const status = (outcomeLine.exec(text.split('\n').slice(-3).join('\n'))?.[1]?.toLowerCase() ?? 'success') as OutcomeStatus;
      return {
        status,
        output: text,
        failureReason: status === 'fail' ? text.slice(-2_000) : undefined,
        usage,
        contextUpdates: { last_response: text, [`${node.name}.response`]: text },
      };
    },
  };
}

/**
 * The context as `key: value` lines, the engine's own (`_...`) and those the prompt already shows
 * in full (`named`) left out, the failures so far as a list.
 */
function contextLines(data: Record<string, unknown>, named: ReadonlySet<string>): string[] {
  return Object.entries(data)
    .filter(([key]) => !key.startsWith('_') && !named.has(key))
    .flatMap(([key, value]) => (key === 'feedback_history' && Array.isArray(value) ? feedbackLines(value) : [`${key}: ${asText(value)}`]));
}

/** The context keys `template` names (`{key}`, `{context.key}`). */
function namedKeys(template: string): Set<string> {
  return new Set([...template.matchAll(/\{([A-Za-z_][\w.-]*)\}/g)].map((match) => match[1]!.replace(/^context\./, '')));
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
