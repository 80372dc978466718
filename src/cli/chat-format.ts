/** Text shown by the terminal chat: tool-call summaries and `/status`. */
import type { ContextUsage } from '../agent/extension-context.ts';
import type { Cost } from '../llm/cost.ts';
import type { ToolCallPart, Usage } from '../llm/types.ts';
import { safeTerminalText } from './terminal-text.ts';

const salientArguments = ['path', 'command', 'pattern', 'query', 'url', 'name'];

/** `read_file src/index.ts`: the tool name and its most telling argument, on one line. */
export function summarizeToolCall(call: ToolCallPart): string {
  const key = salientArguments.find((name) => typeof call.arguments[name] === 'string');
  const detail = key ? String(call.arguments[key]) : JSON.stringify(call.arguments);
  // The model wrote the arguments: no control character of theirs reaches the terminal.
  const oneLine = safeTerminalText(detail).replace(/\s+/g, ' ');
  return `${call.name} ${oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine}`.trim();
}

/** The `/status` block. */
export function formatStatus(model: string, sessionId: string, stats: { calls: number; usage: Usage; cost: Cost }, context: ContextUsage): string {
  const { usage, cost } = stats;
  const percent = (context.fraction * 100).toFixed(1);
  return [
    `model    ${model}`,
    `session  ${sessionId}`,
    `calls    ${stats.calls}`,
    `tokens   ${usage.input} in, ${usage.output} out, ${usage.cacheRead} cache read, ${usage.cacheWrite} cache write`,
    `cost     $${cost.total.toFixed(4)}`,
    `context  ${context.tokens} / ${context.contextWindow} tokens (${percent}%${context.measured ? '' : ', estimated'})`,
  ].join('\n');
}
