/**
 * How `operator pipeline` tells a run's events on the terminal: a line (or a few) per step; with
 * `--verbose`, each node's events as they happen besides (the checkpoint, what its agent was
 * asked, its tokens and cost, why an edge was taken, how long a retry waits).
 */
import type { PipelineEvent } from '../pipelines/engine/pipeline-events.ts';

/** Why an edge was taken, by the step of edge selection that chose it. */
const edgeReasons: Readonly<Record<string, string>> = {
  1: 'its condition holds',
  2: 'the preferred label',
  3: 'a suggested next step',
  4: 'unconditional',
  5: 'the last resort (no condition held)',
  next_node: "the step's own choice",
  failure_route: 'the failure route',
  goal_gate: 'a goal gate is not met',
};

/** The text of `event` ('' for none). */
export function describeEvent(event: PipelineEvent, verbose: boolean): string {
  switch (event.type) {
    case 'run_start':
      return event.resumed ? `Resuming run ${event.runId}.\n` : '';
    case 'node_rerun':
      return `${event.node} was running when the run stopped: it runs again.\n`;
    case 'node_start':
      return `> ${event.node}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}\n`;
    case 'node_prompt':
      return verbose ? `  asked (${event.prompt.length.toLocaleString('en-US')} characters): ${(event.prompt.split('\n')[1] ?? '').slice(0, 120)}\n` : '';
    case 'node_end': {
      const used = verbose && event.usage ? `; ${event.usage.input.toLocaleString('en-US')} tokens in, ${event.usage.output.toLocaleString('en-US')} out, $${event.usage.cost.toFixed(4)}` : '';
      return `  ${event.status} in ${(event.durationMs / 1000).toFixed(1)} s${used}${event.failureReason ? `: ${event.failureReason.split('\n')[0]}` : ''}\n`;
    }
    case 'retry':
      return `  retrying${verbose ? ` in ${(event.delayMs / 1000).toFixed(1)} s` : ''}: ${event.reason.split('\n')[0]}\n`;
    case 'edge':
      return `  -> ${event.to}${event.label ? ` (${event.label})` : ''}${verbose ? ` [${edgeReasons[String(event.step)] ?? event.step}]` : ''}\n`;
    case 'checkpoint':
      return verbose ? `  checkpoint: ${event.node} begins\n` : '';
    case 'gate_answered':
      return event.answer.timedOut ? '' : `  answer: ${event.answer.value}\n`;
    case 'run_end':
      // The sentence ends once: an error may end in its own full stop (a spending cap's refusal does).
      return `Run ${event.runId} ${event.status}${event.error ? `: ${event.error.replace(/\.$/, '')}` : ''}.\n`;
    default:
      return '';
  }
}
