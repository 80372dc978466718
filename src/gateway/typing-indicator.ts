/** The typing indicator while a turn works. */
import type { ChannelAdapter, ConversationAddress } from '../channels/types.ts';
import type { TypingBudget } from './typing-budget.ts';

/**
 * How long a turn works before the typing indicator is shown. An answer that comes sooner arrives
 * before an indicator would have been drawn, and skipping it saves a platform call per quick turn
 * (which counts against the platform's rate limits).
 */
const typingDelayMs = 400;

/** How often the typing indicator is renewed while a turn works. */
const typingRepeatMs = 4_000;

/**
 * Shows the typing indicator while a turn works: first after {@link typingDelayMs}, then every
 * {@link typingRepeatMs} (platforms drop it after about five seconds), each time the platform's
 * `budget` allows (see `typing-budget.ts`; a time it does not is skipped). `stop()` ends it, and
 * takes it down where the platform needs that.
 */
export function keepTyping(adapter: ChannelAdapter, address: ConversationAddress, budget?: TypingBudget): { stop(): void } {
  if (!adapter.capabilities.typing) return { stop() {} };
  let repeat: ReturnType<typeof setInterval> | undefined;
  let shown = false;
  const tick = () => {
    if (budget && !budget.take()) return;
    shown = true;
    void adapter.typing(address).catch(() => undefined);
  };
  const first = setTimeout(() => {
    tick();
    repeat = setInterval(tick, typingRepeatMs);
    repeat.unref();
  }, typingDelayMs);
  first.unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(repeat);
      if (shown) void adapter.stopTyping?.(address).catch(() => undefined);
    },
  };
}
