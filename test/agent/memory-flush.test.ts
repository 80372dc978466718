import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEventOf } from '../../src/agent/agent-events.ts';
import { memoryFlushPrompt } from '../../src/agent/memory-flush.ts';
import { BackgroundReviewer, reviewMarker } from '../../src/agent/reviewer.ts';
import type { ModelInfo } from '../../src/llm/catalog.ts';
import { createMemoryTool } from '../../src/tools/resources/memory.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import { inQueuedTask } from '../helpers/counted-slot.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
let folder: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

/** A small window, so a turn's usage can cross the compaction threshold (10,000 - 2,000). */
const tiny: ModelInfo = {
  id: 'tiny',
  provider: 'anthropic',
  displayName: 'tiny',
  contextWindow: 10_000,
  maxOutput: 1_000,
  vision: false,
  reasoning: false,
  price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  aliases: [],
};

/** The real memory tool over a fresh profile folder. */
function profileMemory() {
  folder = mkdtempSync(join(tmpdir(), 'operator-flush-'));
  const memoryPath = join(folder, 'MEMORY.md');
  const userPath = join(folder, 'USER.md');
  return { tool: createMemoryTool({ memoryPath, userPath }), memoryPath, userPath };
}

const flushMarker = 'Memory flush before compaction';
const saveCall = (content: string, target = 'memory') => ({ toolCalls: [{ name: 'memory', arguments: { action: 'add', target, content } }] });
const text = (value: unknown) => JSON.stringify(value);
const flushEvents = (h: Harness) => h.events.filter((event): event is AgentEventOf<'memory_flush'> => event.type === 'memory_flush');

/**
 * An agent with the memory tool and a small window, one turn in; the next turn crosses the
 * compaction threshold, and its replies are queued: the answer, the flush (one save, then its
 * closing line) and the summary.
 */
async function crossingTheThreshold(): Promise<{ harness: Harness; memory: ReturnType<typeof profileMemory> }> {
  const memory = profileMemory();
  harness = await createHarness({ agent: { tools: [memory.tool], modelInfo: tiny, compaction: { reserveTokens: 2_000, keepRecentTokens: 10 } } });
  harness.server.enqueue({ text: 'first answer', usage: { input: 100, output: 10 } });
  await harness.agent.invoke('I am Ada; deploys go through #releases.', { channel: 'telegram:1' });
  harness.server.enqueue(
    { text: 'second answer', usage: { input: 9_000, output: 10 } },
    { ...saveCall('Deploys go through #releases.'), usage: { input: 1_000, output: 20 } },
    { text: 'saved one fact', usage: { input: 1_100, output: 5 } },
    { text: 'THE SUMMARY' },
  );
  return { harness, memory };
}

describe('memory flush before compaction', () => {
  it('saves facts of the part about to be summarized, then summarizes (threshold)', async () => {
    const crossing = await crossingTheThreshold();
    harness = crossing.harness;
    const { memory } = crossing;
    await harness.agent.invoke('second question', { channel: 'telegram:1' });

    const [, parentLast, flushFirst, flushSecond, summary] = harness.server.requests;
    expect(harness.server.requests).toHaveLength(5);
    // The flush request: the parent's system prompt and tools (prompt cache), the messages to be
    // summarized and none of those kept, then the flush prompt.
    expect(text(flushFirst!.body.system)).toBe(text(parentLast!.body.system));
    expect(text(flushFirst!.body.tools)).toBe(text(parentLast!.body.tools));
    expect(text(flushFirst!.body.tools)).toContain('"memory"');
    const flushMessages = text(flushFirst!.body.messages);
    expect(flushMessages).toContain('deploys go through #releases');
    expect(flushMessages).toContain(flushMarker);
    expect(flushMessages).not.toContain('second question');
    expect(text(flushSecond!.body.messages)).toContain('Added to memory');
    // Then the summary call, with the same older conversation.
    expect(text(summary!.body.system)).toContain('working memory of a long conversation');
    expect(text(summary!.body.messages)).toContain('deploys go through #releases');
    expect(text(summary!.body.messages)).not.toContain(memoryFlushPrompt.slice(0, 30));

    expect(readFileSync(memory.memoryPath, 'utf8')).toContain('Deploys go through #releases.');
    expect(harness.types(['session_before_compact', 'memory_flush', 'session_compact'])).toEqual(['session_before_compact', 'memory_flush', 'session_compact']);
    expect(flushEvents(harness)[0]).toMatchObject({ reason: 'threshold', status: 'done', saved: 1, messages: 1, toSummarize: 1, text: 'saved one fact' });
    // Charged like a memory review, apart from the conversation.
    expect(harness.agent.reviewTotals.reviews).toBe(1);
    expect(harness.agent.reviewTotals.usage).toMatchObject({ input: 2_100, output: 25 });
    expect(harness.agent.reviewTotals.cost.total).toBeGreaterThan(0);

    // The flush never reaches the conversation; the summary does.
    harness.server.enqueue({ text: 'third answer' });
    await harness.agent.invoke('third question', { channel: 'telegram:1' });
    const sent = text(harness.server.requests.at(-1)!.body.messages);
    expect(sent).toContain('THE SUMMARY');
    expect(sent).not.toContain(flushMarker);
    expect(sent).not.toContain('saved one fact');
  });

  it('runs before a manual /compact, and not again for the same cut', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' });
    await harness.agent.invoke('My time zone is CET.');
    await harness.agent.invoke('q2');
    const before = harness.server.requests.length;
    harness.server.enqueue(saveCall('Ada is in CET.', 'user'), { text: 'saved' }, { error: { status: 500, message: 'summary boom' } });
    await expect(harness.agent.runCompaction()).rejects.toThrow();
    expect(readFileSync(memory.userPath, 'utf8')).toContain('Ada is in CET.');
    expect(harness.server.requests.length - before).toBe(3);
    expect(flushEvents(harness)).toMatchObject([{ reason: 'manual', status: 'done', saved: 1 }]);
    expect(harness.types(['session_compact'])).toEqual([]);
    // The transcript is as before (the flush leaves only a marker the model never sees).
    expect((await harness.agent.session()).buildContext().messages).toHaveLength(4);

    // The same cut again: straight to the summary.
    harness.server.enqueue({ text: 'SUMMARY' });
    const entry = await harness.agent.runCompaction();
    expect(entry?.summary).toBe('SUMMARY');
    expect(harness.server.requests.length - before).toBe(4);
    expect(flushEvents(harness)).toHaveLength(1);
  });

  it("hands the queued task's slot to the turn's, the flush's and the summary's model calls, so each waits out of it", async () => {
    harness = (await crossingTheThreshold()).harness;
    const before = harness.server.requests.length;
    const turn = await inQueuedTask((slot) => harness!.agent.invoke('second question', { channel: 'telegram:1', slot }));
    // The turn's call, the flush's two and the summary: four calls, each out and back once.
    expect(harness.server.requests.length - before).toBe(4);
    expect(turn.counts).toEqual({ leaves: 4, backs: 4 });
    expect(turn.after).toEqual({ running: 0, away: 0 });
    expect(harness.types(['session_compact'])).toEqual(['session_compact']);

    // A manual compaction run in a queued task (the /compact command): its flush and summary too.
    harness.server.enqueue({ text: 'third answer' }, { text: 'fourth answer' }, { text: 'nothing new to save' }, { text: 'SUMMARY AGAIN' });
    await harness.agent.invoke('third question', { channel: 'telegram:1' });
    await harness.agent.invoke('fourth question', { channel: 'telegram:1' });
    const manual = await inQueuedTask((slot) => harness!.agent.runCompaction(undefined, { slot }));
    expect(manual.result?.summary).toBe('SUMMARY AGAIN');
    expect(manual.counts).toEqual({ leaves: 2, backs: 2 });
    // Without a slot (a call outside the queue), nothing is left: the next turn holds none.
    harness.server.enqueue({ text: 'fifth answer' });
    const outside = await inQueuedTask(() => harness!.agent.invoke('fifth question', { channel: 'telegram:1' }));
    expect(outside.counts).toEqual({ leaves: 0, backs: 0 });
  });

  it('does nothing without a memory tool', async () => {
    harness = await createHarness({ agent: { tools: [echoTool()], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' }, { text: 'SUMMARY' });
    await harness.agent.invoke('q1');
    await harness.agent.invoke('q2');
    await harness.agent.runCompaction();
    expect(harness.server.requests).toHaveLength(3);
    expect(text(harness.server.requests[2]!.body.system)).toContain('working memory of a long conversation');
    expect(flushEvents(harness)).toEqual([]);
    expect(harness.agent.reviewTotals.reviews).toBe(0);
  });

  it('does nothing when there is nothing to summarize', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool] } });
    expect(await harness.agent.runCompaction()).toBeUndefined();
    expect(harness.server.requests).toHaveLength(0);
    expect(flushEvents(harness)).toEqual([]);
  });

  it('compacts when the flush fails, without retrying the flush', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' });
    await harness.agent.invoke('q1');
    await harness.agent.invoke('q2');
    harness.server.enqueue({ error: { status: 500, message: 'flush boom' } }, { text: 'SUMMARY' });
    const entry = await harness.agent.runCompaction();
    expect(entry?.summary).toBe('SUMMARY');
    expect(harness.server.requests).toHaveLength(4);
    expect(text(harness.server.requests[2]!.body.messages)).toContain(flushMarker);
    expect(text(harness.server.requests[3]!.body.system)).toContain('working memory of a long conversation');
    expect(flushEvents(harness)).toMatchObject([{ status: 'failed', saved: 0 }]);
    expect(flushEvents(harness)[0]!.error).toMatch(/flush boom|500/);
    expect(existsSync(memory.memoryPath)).toBe(false);
    expect(harness.agent.phase).toBe('idle');
  });

  it('stops at its token cap, after the tool calls of the call that crossed it ran', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' });
    await harness.agent.invoke('We deploy from main.');
    await harness.agent.invoke('q2');
    harness.server.enqueue({ ...saveCall('Deploys go from main.'), usage: { input: 500_000, output: 10 } }, { text: 'SUMMARY' });
    const entry = await harness.agent.runCompaction();
    expect(entry?.summary).toBe('SUMMARY');
    expect(harness.server.requests).toHaveLength(4);
    expect(flushEvents(harness)).toMatchObject([{ status: 'capped', saved: 1 }]);
    expect(readFileSync(memory.memoryPath, 'utf8')).toContain('Deploys go from main.');
    expect(harness.agent.reviewTotals.usage.input).toBe(500_000);
  });

  it('after a context overflow, shows the flush only the oldest part that fits', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool], modelInfo: tiny, compaction: { reserveTokens: 2_000, keepRecentTokens: 10 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' }, { text: 'a3' });
    await harness.agent.invoke('We ship on Tuesdays.');
    await harness.agent.invoke(`Here is a log: ${'x'.repeat(40_000)}`); // ~10,000 estimated tokens
    await harness.agent.invoke(`q3 ${'y'.repeat(60)}`); // the kept part starts here
    harness.server.enqueue(
      { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
      saveCall('Releases ship on Tuesdays.'),
      { text: 'saved' },
      { text: 'SUMMARY OF EARLIER TALK' },
      { text: 'answer four' },
    );
    const result = await harness.agent.invoke('q4');
    expect(result.text).toBe('answer four');
    const [flushFirst] = harness.server.requests.slice(4);
    const flushMessages = text(flushFirst!.body.messages);
    expect(flushMessages).toContain('We ship on Tuesdays.');
    expect(flushMessages).not.toContain('xxxxxxxxxx');
    expect(flushMessages).toContain(flushMarker);
    // The summary still covers everything before the cut.
    expect(text(harness.server.requests[6]!.body.messages)).toContain('xxxxxxxxxx');
    expect(flushEvents(harness)).toMatchObject([{ reason: 'overflow', status: 'done', saved: 1, messages: 2, toSummarize: 4 }]);
    expect(readFileSync(memory.memoryPath, 'utf8')).toContain('Releases ship on Tuesdays.');
    expect(harness.types(['memory_flush', 'session_compact', 'retry_start'])).toEqual(['memory_flush', 'session_compact', 'retry_start']);
  });

  it('counts as a review: the reviewer starts counting turns afresh', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool], modelInfo: tiny, compaction: { reserveTokens: 2_000, keepRecentTokens: 10 } } });
    const reviewer = new BackgroundReviewer(harness.agent, { everyTurns: 2, tools: ['memory'] });
    harness.agent.setReviewer(reviewer);
    harness.server.enqueue({ text: 'first answer', usage: { input: 100, output: 10 } });
    await harness.agent.invoke('first question');
    expect((await reviewer.running)?.status).toBe('skipped');
    harness.server.enqueue({ text: 'second answer', usage: { input: 9_000, output: 10 } }, { text: 'nothing to save' }, { text: 'THE SUMMARY' });
    await harness.agent.invoke('second question');
    // Two person turns, but the flush just reviewed them: no review now.
    expect((await reviewer.running)?.status).toBe('skipped');
    expect(harness.server.requests).toHaveLength(4);
    const markers = (await harness.agent.session()).entries().filter((entry) => entry.type === 'custom' && entry.customType === reviewMarker);
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ data: { flush: true, saved: 0 } });
  });

  it('is cancelled with the compaction when the person stops', async () => {
    const memory = profileMemory();
    harness = await createHarness({ agent: { tools: [memory.tool], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' });
    await harness.agent.invoke('q1');
    await harness.agent.invoke('q2');
    harness.server.enqueue({ text: 'a slow flush that is stopped midway', chunkSize: 1, delayMs: 100 });
    const compaction = harness.agent.runCompaction();
    while (harness.server.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    harness.agent.abort();
    await expect(compaction).rejects.toThrow();
    expect(flushEvents(harness)).toMatchObject([{ status: 'cancelled' }]);
    expect(harness.server.requests).toHaveLength(3);
    expect(harness.agent.phase).toBe('idle');
  });
});
