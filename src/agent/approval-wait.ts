/** Waiting for a person's answer to a guardrail's question. */
import type { ToolCallPart } from '../llm/types.ts';
import type { AgentOptions } from './agent-options.ts';

/**
 * The reason an approval request's signal is aborted with when nobody answered in time (a turn
 * stopped or ended aborts it with another): the asker may tell the chat it timed out.
 */
export class ApprovalTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${Math.round(timeoutMs / 1000)} s`);
    this.name = 'ApprovalTimedOut';
  }
}

/**
 * Asks through `ask` whether `call` may run and resolves with the answer. No way to ask, a
 * refusal, an abort of `turnSignal` or no answer within `timeoutMs` all deny. `pause` holds the
 * turn while it waits (the agent's PAUSED state).
 */
export async function waitForApproval(options: {
  ask: AgentOptions['requestApproval'];
  call: ToolCallPart;
  reason: string;
  timeoutMs: number;
  turnSignal: AbortSignal;
  pause: <T>(work: () => Promise<T>) => Promise<T>;
}): Promise<boolean> {
  const { ask, call, reason, turnSignal } = options;
  if (!ask) return false;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  turnSignal.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new ApprovalTimedOut(options.timeoutMs));
      resolve(false);
    }, options.timeoutMs);
  });
  const aborted = new Promise<boolean>((resolve) => controller.signal.addEventListener('abort', () => resolve(false), { once: true }));
  try {
    const answer = () => Promise.resolve(ask({ call, reason, signal: controller.signal })).catch(() => false);
    return (await options.pause(() => Promise.race([answer(), timedOut, aborted]))) === true;
  } finally {
    clearTimeout(timer);
    turnSignal.removeEventListener('abort', onAbort);
  }
}
