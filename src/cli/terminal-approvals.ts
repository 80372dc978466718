/**
 * Approvals in the terminal: when a guardrail asks, the chat prints the question and the person's
 * next line answers it (`y`/`yes` allows; anything else, an abort or the timeout denies).
 */
import type { ApprovalRequest } from '../agent/agent-options.ts';
import { summarizeToolCall } from './chat-format.ts';

/** Pending approval questions of one terminal chat. */
export class TerminalApprovals {
  #pending: ((allowed: boolean) => void) | undefined;
  #write: (text: string) => void = () => {};

  /** Where questions are printed (set by the chat). */
  attach(write: (text: string) => void): void {
    this.#write = write;
  }

  /** Whether a question waits for an answer. */
  get waiting(): boolean {
    return this.#pending !== undefined;
  }

  /** The agent's `requestApproval`. */
  readonly request = (request: ApprovalRequest): Promise<boolean> =>
    new Promise((resolve) => {
      const settle = (allowed: boolean) => {
        if (this.#pending === settle) this.#pending = undefined;
        resolve(allowed);
      };
      this.#pending?.(false);
      this.#pending = settle;
      request.signal.addEventListener('abort', () => settle(false), { once: true });
      this.#write(`\n  ? ${request.reason}\n    allow ${summarizeToolCall(request.call)}? [y/N] `);
    });

  /** Answers the waiting question with `line`; false when nothing was waiting. */
  answer(line: string): boolean {
    const pending = this.#pending;
    if (!pending) return false;
    pending(/^\s*y(es)?\s*$/i.test(line));
    return true;
  }
}
