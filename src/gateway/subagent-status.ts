/** What `/status` says of a conversation's subagents: their spend, the open ones and the latest. */
import type { SubagentRecord, SubagentStatus } from '../agent/subagents/index.ts';
import type { Subagents } from '../agent/subagents/subagents.ts';
import { formatCost, formatCount, formatDuration, plural } from './status-format.ts';

/** Children listed by `/status`: every open one, then the latest closed ones up to this many lines. */
const listed = 8;

/** The `/status` lines of `children` (none when it never started one); `now` times the running ones. */
export function subagentStatus(children: Awaited<ReturnType<Subagents['list']>>, now: number = Date.now()): string[] {
  const { records, spent } = children;
  if (spent.children === 0) return [];
  const running = records.filter((record) => record.status === 'running').length;
  const tokensIn = spent.usage.input + spent.usage.cacheRead + spent.usage.cacheWrite;
  const lines = [`Subagents: ${spent.children} started, ${running} working; ${formatCount(tokensIn)} tokens in, ${formatCount(spent.usage.output)} out, ${formatCost(spent.cost.total)} (charged to this conversation)`];
  const open = records.filter((record) => !record.closed);
  const closed = records.filter((record) => record.closed).slice(-Math.max(0, listed - open.length));
  for (const record of [...open, ...closed].slice(-listed)) lines.push(`  ${describe(record, now)}`);
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

function describe(record: SubagentRecord, now: number): string {
  // A child that ended without an end time (interrupted by a restart) has no duration to tell.
  const end = record.endedAt ?? (record.status === 'running' ? now : undefined);
  const took = end === undefined ? '' : `, ${formatDuration(end - record.startedAt)}`;
  const calls = `${formatCount(record.toolCalls)} tool ${plural(record.toolCalls, 'call')}`;
  return `${record.id} ${words[record.status]}${record.closed ? ', closed' : ''}: ${record.task} (${calls}${took}, ${formatCost(record.cost)}; session ${record.sessionKey})`;
}
