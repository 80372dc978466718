/**
 * What a child is given when it starts work, and how its end is told: the task's framing, the turn
 * it works under (its starter's person and rights, in its own working directory), who may give it
 * more work, and the words `wait` uses for a child that did not finish.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { TurnContext } from '../../tools/tool.ts';
import { readSeat, seatWithin, type TurnSeat } from '../../tools/turn-seat.ts';
import type { SubagentRecord } from './subagent-record.ts';

/** What a child is given to start: who it works for, then the task. */
export function taskInput(id: string, task: string): string {
  return [
    `[A task from the agent you work for; you are its subagent '${id}'. No person reads your messages: work with your tools,`,
    'then answer with what you found or did, complete and to the point. Your final answer is all that agent gets back.]',
    '',
    task,
  ].join('\n');
}

/**
 * The child's turn: the caller's person, rights and workspace (never more), nothing to send to the
 * chat, and its own working directory when that lies inside the caller's workspace (one chosen in
 * a turn with a wider workspace does not take a later turn outside its own).
 */
export function childTurn(turn: TurnContext | undefined, cwd: string | undefined): TurnContext | undefined {
  if (!turn) return undefined;
  const within = cwd !== undefined && turn.workspace !== undefined && turn.workspace.roots.some((root) => inside(resolve(root), resolve(cwd)));
  const workspace = turn.workspace && within ? { ...turn.workspace, cwd } : turn.workspace;
  return { ...turn, workspace, attachFile: undefined };
}

/**
 * Why a turn from `seat` may not give work to a child started from `kept`, or undefined: a child
 * works with its caller's tools, so a caller with more than the turn that started it (another
 * person's, or a scheduled job's) would lift what that turn had put in its session.
 */
export function seatRefusal(id: string, kept: TurnSeat | undefined, seat: TurnSeat | undefined): string | undefined {
  if (seat === undefined || seatWithin(seat, readSeat(kept))) return undefined;
  return `Subagent '${id}' was started in a turn with fewer tools than this one (another person's, or a scheduled job's); start a new subagent for this.`;
}

/** Why a child did not finish, for `wait`. */
export function failureWords(record: SubagentRecord): string {
  switch (record.status) {
    case 'over-budget':
      return 'was stopped: it used its token budget.';
    case 'stopped':
      return `was stopped (${record.error ?? 'stopped'}).`;
    case 'interrupted':
      return `was interrupted (${record.error ?? 'restart'}); send_input starts it again where it was.`;
    default:
      return `failed: ${record.error ?? 'unknown error'}`;
  }
}

/** Whether `target` is `root` or inside it. */
export function inside(root: string, target: string): boolean {
  const path = relative(root, target);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}
