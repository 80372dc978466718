/**
 * The typing indicators' budget (`typing-budget.ts`): a token bucket per platform, and
 * `keepTyping` skipping an indicator the budget does not allow (no call, nothing to take down).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelAdapter, ConversationAddress } from '../../src/channels/types.ts';
import { typingBudget, typingIndicatorsPerSecond } from '../../src/gateway/typing-budget.ts';
import { keepTyping } from '../../src/gateway/typing-indicator.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A clock the test moves. */
function clock() {
  let at = 1_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('typing budget', () => {
  it('allows its rate at once after a quiet spell, then one more per share of a second, never more than its rate saved', () => {
    const time = clock();
    const budget = typingBudget(10, time.now);
    expect(Array.from({ length: 12 }, () => budget.take())).toEqual([...Array(10).fill(true), false, false]);
    time.advance(99);
    expect(budget.take()).toBe(false);
    time.advance(1);
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    // A long quiet spell saves no more than one second's worth.
    time.advance(60_000);
    expect(Array.from({ length: 11 }, () => budget.take()).filter(Boolean)).toHaveLength(10);
  });

  it('defaults to ten a second and refuses a rate that is not positive', () => {
    expect(typingIndicatorsPerSecond).toBe(10);
    expect(() => typingBudget(0)).toThrow(RangeError);
    expect(() => typingBudget(Number.NaN)).toThrow(RangeError);
  });
});

describe('keepTyping with a budget', () => {
  /** An adapter that only records its typing calls. */
  function recordingAdapter() {
    const calls: string[] = [];
    const adapter = {
      platform: 'test',
      capabilities: { edit: true, typing: true, buttons: false, threads: false, maxLength: 4096, editIntervalMs: 0, commandMenu: false, maxFileBytes: 0 },
      async typing(address: ConversationAddress) {
        calls.push(`typing ${address.conversationId}`);
      },
      async stopTyping(address: ConversationAddress) {
        calls.push(`stop ${address.conversationId}`);
      },
    } as unknown as ChannelAdapter;
    return { adapter, calls };
  }
  const address = (id: string): ConversationAddress => ({ platform: 'test', conversationId: id });

  it('sends the indicators the shared budget allows, skips the rest until their renewal, and takes down only those shown', async () => {
    vi.useFakeTimers();
    const { adapter, calls } = recordingAdapter();
    const budget = typingBudget(1, () => Date.now());
    const first = keepTyping(adapter, address('a'), budget);
    const second = keepTyping(adapter, address('b'), budget);
    // At 400 ms both are due: the budget has one, the other is skipped.
    await vi.advanceTimersByTimeAsync(400);
    expect(calls).toEqual(['typing a']);
    // At the renewal (4 s on) the budget has one again: the first in line takes it.
    await vi.advanceTimersByTimeAsync(4_000);
    expect(calls).toEqual(['typing a', 'typing a']);
    first.stop();
    second.stop();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(['typing a', 'typing a', 'stop a']);
  });

  it('sends every indicator when no budget is given', async () => {
    vi.useFakeTimers();
    const { adapter, calls } = recordingAdapter();
    const typings = ['a', 'b', 'c'].map((id) => keepTyping(adapter, address(id)));
    await vi.advanceTimersByTimeAsync(400);
    expect(calls).toEqual(['typing a', 'typing b', 'typing c']);
    for (const typing of typings) typing.stop();
  });
});
