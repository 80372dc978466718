/**
 * A platform's budget of typing indicators, shared by all its conversations: at most
 * {@link typingIndicatorsPerSecond} a second, up to that many at once after a quiet spell (a token
 * bucket). A typing indicator is a platform call like a reply, and counts against the same rate
 * limits (Telegram's about 30 messages a second per bot, Discord's 50 requests a second): when
 * a thousand people write at once, a thousand indicators would take the budget the answers need,
 * and the gateway's own CPU (a call each, about a millisecond). Past the budget a conversation's
 * indicator waits for its next renewal, a few seconds on; its answer is not held back.
 */

/** Typing indicators a platform is sent per second at most, across all its conversations. */
export const typingIndicatorsPerSecond = 10;

/** See the module comment. */
export interface TypingBudget {
  /** Takes one indicator's share: `false` when the budget is spent (send nothing then). */
  take(): boolean;
}

/**
 * A budget of `perSecond` indicators a second, holding at most `perSecond` unused. `now` is a
 * monotonic clock in milliseconds (`performance.now` by default).
 *
 * @example
 * const budget = typingBudget();
 * if (budget.take()) await adapter.typing(address);
 */
export function typingBudget(perSecond = typingIndicatorsPerSecond, now: () => number = () => performance.now()): TypingBudget {
  if (!(perSecond > 0)) throw new RangeError(`perSecond must be positive, got ${perSecond}`);
  let tokens = perSecond;
  let last = now();
  return {
    take() {
      const at = now();
      tokens = Math.min(perSecond, tokens + ((at - last) * perSecond) / 1000);
      last = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
