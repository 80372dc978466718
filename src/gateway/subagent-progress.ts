/**
 * The subagents' progress in the chat: one message, one line per child of the turn, edited in
 * place as they move on, and a last time when the turn ends (see `status-message.ts`).
 */
import { shorten } from '../core/shorten.ts';
import type { SubagentLine } from '../agent/subagents/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../channels/types.ts';
import { StatusMessage } from './status-message.ts';

const marks: Record<SubagentLine['status'], string> = {
  running: '⏳',
  done: '✅',
  failed: '❌',
  stopped: '⏹',
  'over-budget': '⛔',
  interrupted: '⏸',
};

/** The progress message's text. */
export function progressText(lines: readonly SubagentLine[]): string {
  const rows = lines.map((line) => {
    const calls = `${line.toolCalls} tool call${line.toolCalls === 1 ? '' : 's'}`;
    const state = line.status === 'running' ? (line.tool ? `${calls}, now ${line.tool}` : calls) : `${line.status === 'over-budget' ? 'over its budget' : line.status}, ${calls}`;
    return `${marks[line.status]} ${line.id} · ${shorten(line.task, 60)} — ${state}`;
  });
  return [`Subagents (${lines.filter((line) => line.status === 'running').length} working):`, ...rows].join('\n');
}

/** One turn's progress message (see `status-message.ts`). */
export class SubagentProgress {
  readonly #message: StatusMessage;

  constructor(adapter: ChannelAdapter, address: ConversationAddress, options: { replyTo?: string; log: (line: string) => void }) {
    this.#message = new StatusMessage(adapter, address, { ...options, what: 'subagent progress' });
  }

  /** The children's lines now; shown at once the first time, then at the platform's pace. */
  update(lines: readonly SubagentLine[]): void {
    if (lines.length > 0) this.#message.update(progressText(lines));
  }

  /** Shows the last lines (when a child worked in this turn at all) and stops. */
  async close(lines?: readonly SubagentLine[]): Promise<void> {
    await this.#message.close(lines && lines.length > 0 && this.#message.started ? progressText(lines) : undefined);
  }
}

