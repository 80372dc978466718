/**
 * When the slow-provider notice fires: after `afterMs` of a model call showing nothing, counted
 * across failed attempts and the waits between them, never once the model shows life, never
 * during a tool's run, at most once per turn. Timers are Vitest's fake clock, so no real time
 * passes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/agent/agent-events.ts';
import { SlowModelNotice } from '../../src/gateway/slow-model-notice.ts';

const call = { id: 'c1', name: 'bash', arguments: {} };
const events = {
  modelCall: { type: 'turn_start', round: 1 },
  text: { type: 'text_delta', text: 'Hi' },
  thinking: { type: 'thinking_delta', text: 'hm' },
  toolStart: { type: 'tool_execution_start', call },
  answer: { type: 'message_end', message: { role: 'assistant', content: [], stopReason: 'stop' } },
  userMessage: { type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'hello' }] } },
  failed: { type: 'engine_end', messages: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, aborted: false },
} as unknown as Record<string, AgentEvent>;

describe('SlowModelNotice', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const watch = () => {
    let told = 0;
    const notice = new SlowModelNotice(15_000, () => told++);
    return { notice, told: () => told };
  };

  it('tells once after afterMs of a silent model call', () => {
    const { notice, told } = watch();
    notice.hear(events.modelCall!);
    vi.advanceTimersByTime(14_999);
    expect(told()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(told()).toBe(1);
    notice.hear(events.modelCall!);
    vi.advanceTimersByTime(60_000);
    expect(told()).toBe(1);
  });

  it('counts the silence across a failed attempt and the next call', () => {
    const { notice, told } = watch();
    notice.hear(events.modelCall!);
    vi.advanceTimersByTime(10_000);
    notice.hear(events.failed!);
    notice.hear(events.modelCall!);
    vi.advanceTimersByTime(5_000);
    expect(told()).toBe(1);
  });

  for (const life of ['text', 'thinking', 'toolStart', 'answer'] as const) {
    it(`says nothing once the model shows life (${life}), until a later call is silent`, () => {
      const { notice, told } = watch();
      notice.hear(events.modelCall!);
      vi.advanceTimersByTime(14_000);
      notice.hear(events[life]!);
      vi.advanceTimersByTime(60_000);
      expect(told()).toBe(0);
      notice.hear(events.modelCall!);
      vi.advanceTimersByTime(15_000);
      expect(told()).toBe(1);
    });
  }

  it('is not quieted by a message that is not the model’s', () => {
    const { notice, told } = watch();
    notice.hear(events.modelCall!);
    notice.hear(events.userMessage!);
    vi.advanceTimersByTime(15_000);
    expect(told()).toBe(1);
  });

  it('knows whether the turn waits on a silent model call (for the note at its deadline)', () => {
    const { notice } = watch();
    expect(notice.silent).toBe(false);
    notice.hear(events.modelCall!);
    vi.advanceTimersByTime(20_000);
    notice.hear(events.failed!);
    // Told, failed, and still silent through the retry.
    expect(notice.silent).toBe(true);
    notice.hear(events.toolStart!);
    expect(notice.silent).toBe(false);
  });

  it('says nothing after the turn ended', () => {
    const { notice, told } = watch();
    notice.hear(events.modelCall!);
    notice.stop();
    vi.advanceTimersByTime(60_000);
    notice.hear(events.modelCall!);
    vi.advanceTimersByTime(60_000);
    expect(told()).toBe(0);
  });
});
