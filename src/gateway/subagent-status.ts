/** What `/status` says of a conversation's subagents: their spend, the open ones and the latest. */
import type { SubagentRecord, SubagentStatus } from '../agent/subagents/index.ts';
import type { Subagents } from '../agent/subagents/subagents.ts';

/** Children listed by `/status`: every open one, then the latest closed ones up to this many lines. */
const listed = 8;

/** The `/status` lines of `children` (none when it never started one). */
export function subagentStatus(children: Awaited<ReturnType<Subagents['list']>>): string[] {
  const { records, spent } = children;
  if (spent.children === 0) return [];
  const running = records.filter((record) => record.status === 'running').length;
  const tokensIn = spent.usage.input + spent.usage.cacheRead + spent.usage.cacheWrite;
  const lines = [`Subagents: ${spent.children} started, ${running} working; ${tokensIn} tokens in, ${spent.usage.output} out, $${spent.cost.total.toFixed(4)} (charged to this conversation)`];
  const open = records.filter((record) => !record.closed);
  const closed = records.filter((record) => record.closed).slice(-Math.max(0, listed - open.length));
  for (const record of [...open, ...closed].slice(-listed)) lines.push(`  ${describe(record)}`);
  return lines;
}

const words: Record<SubagentStatus, string> = {
  running: 'working',
  done: 'done',
  failed: 'failed',
  stopped: 'stopped',
  'over-budget': 'over its budget',
  interrupted: 'interrupted by a restart',
};

function describe(record: SubagentRecord): string {
  return `${record.id} ${words[record.status]}${record.closed ? ', closed' : ''}: ${record.task} (${record.toolCalls} tool calls, $${record.cost.toFixed(4)}; session ${record.sessionKey})`;
}
