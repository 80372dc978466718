import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BackgroundReviewer, reviewMarker, reviewPrompt } from '../../src/agent/reviewer.ts';
import type { ReviewOutcome } from '../../src/agent/reviewer.ts';
import { defineTool } from '../../src/tools/tool.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function memoryTool(saved: string[]) {
  return defineTool({
    name: 'memory',
    description: 'Save a fact.',
    parameters: z.object({ action: z.string(), target: z.string(), content: z.string() }),
    async execute({ content }) {
      saved.push(content);
      return 'saved';
    },
  });
}

describe('background reviewer', () => {
  it('reviews every N turns with a request byte-identical to the parent up to the new message', async () => {
    const saved: string[] = [];
    const echoed: string[] = [];
    let builds = 0;
    harness = await createHarness({
      agent: {
        tools: [echoTool(echoed), memoryTool(saved)],
        systemPrompt: () => {
          builds++;
          return 'STABLE SYSTEM PROMPT';
        },
      },
    });
    const outcomes: ReviewOutcome[] = [];
    const reviewer = new BackgroundReviewer(harness.agent, { everyTurns: 2 }, (outcome) => outcomes.push(outcome));
    harness.agent.setReviewer(reviewer);

    harness.server.enqueue({ text: 'first answer' });
    await harness.agent.invoke('I am Ada, I run the deploys.', { channel: 'telegram:1' });
    expect((await reviewer.running)?.status).toBe('skipped');

    harness.server.enqueue(
      { text: 'second answer', usage: { input: 100, output: 10 } },
      // The review: one memory save (plus a not-whitelisted echo), then its closing line.
      { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'user', content: 'Ada runs the deploys.' } }, { name: 'echo', arguments: { text: 'nope' } }], usage: { input: 200, output: 20 } },
      { text: 'saved one fact', usage: { input: 220, output: 5 } },
    );
    await harness.agent.invoke('Deploys happen on Tuesdays.', { channel: 'telegram:1' });
    const outcome = await reviewer.running;
    expect(outcome?.status).toBe('done');
    expect(saved).toEqual(['Ada runs the deploys.']);
    expect(echoed).toEqual([]);

    const [, parentLast, reviewFirst] = harness.server.requests;
    expect(JSON.stringify(reviewFirst!.body.system)).toBe(JSON.stringify(parentLast!.body.system));
    expect(JSON.stringify(reviewFirst!.body.tools)).toBe(JSON.stringify(parentLast!.body.tools));
    // The parent's messages, then its answer, then the review prompt.
    const parentMessages = parentLast!.body.messages as { role: string; content: { type: string; text?: string }[] }[];
    const reviewMessages = reviewFirst!.body.messages as typeof parentMessages;
    const strip = (messages: typeof parentMessages) => JSON.stringify(messages.map((message) => ({ role: message.role, content: message.content.map(({ type, text }) => ({ type, text })) })));
    expect(strip(reviewMessages.slice(0, parentMessages.length))).toBe(strip(parentMessages));
    expect(JSON.stringify(reviewMessages.at(-1))).toContain('Background memory review');
    expect(JSON.stringify(reviewMessages)).toContain('second answer');

    // Charged apart, marker written, prompt cache of the channel cleared.
    expect(harness.agent.reviewTotals.reviews).toBe(1);
    expect(harness.agent.reviewTotals.usage.input).toBe(420);
    const markers = (await harness.agent.session()).entries().filter((entry) => entry.type === 'custom' && entry.customType === reviewMarker);
    expect(markers).toHaveLength(1);
    const buildsBefore = builds;
    harness.server.enqueue({ text: 'third answer' });
    await harness.agent.invoke('ok', { channel: 'telegram:1' });
    expect(builds).toBe(buildsBefore + 1);
    expect((await reviewer.running)?.status).toBe('skipped'); // one turn since the review: not yet
    expect(outcomes.map((item) => item.status)).toEqual(['done']);
    // The review never reaches the conversation the model sees.
    expect(JSON.stringify(harness.server.requests.at(-1)!.body.messages)).not.toContain(reviewPrompt.slice(0, 30));
  });

  it('is cancelled by a new person turn and does not block it', async () => {
    harness = await createHarness({ agent: { tools: [memoryTool([])] } });
    const reviewer = new BackgroundReviewer(harness.agent, { everyTurns: 1 });
    harness.agent.setReviewer(reviewer);
    harness.server.enqueue({ text: 'answer' }, { text: 'slow review that never ends', chunkSize: 1, delayMs: 200 });
    await harness.agent.invoke('hello');
    expect(reviewer.running).toBeDefined();
    while (harness.server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const running = reviewer.running!;
    harness.server.enqueue({ text: 'next answer' });
    const next = await harness.agent.invoke('are you there?');
    expect(next.text).toBe('next answer');
    expect((await running).status).toBe('cancelled');
    const markers = (await harness.agent.session()).entries().filter((entry) => entry.type === 'custom');
    expect(markers).toHaveLength(0);
    await reviewer.running; // the next review (after this turn) may start; let it settle
    reviewer.cancel();
  });

  it('stops a review that runs past its token cap', async () => {
    harness = await createHarness({ agent: { tools: [memoryTool([])] } });
    const reviewer = new BackgroundReviewer(harness.agent, { everyTurns: 1, maxTokens: 1_000 });
    harness.agent.setReviewer(reviewer);
    harness.server.enqueue({ text: 'answer' });
    harness.server.setDefault({ toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'x' } }], usage: { input: 800, output: 300 } });
    await harness.agent.invoke('hello');
    const outcome = await reviewer.running;
    expect(outcome?.status).toBe('capped');
    expect(harness.server.requests.length).toBe(2);
  });

  it('leaves the prompt cache alone when the review saved nothing', async () => {
    let builds = 0;
    harness = await createHarness({ agent: { tools: [memoryTool([])], systemPrompt: () => `PROMPT ${++builds}` } });
    const reviewer = new BackgroundReviewer(harness.agent, { everyTurns: 1 });
    harness.agent.setReviewer(reviewer);
    harness.server.enqueue({ text: 'answer' }, { text: 'nothing to save' });
    await harness.agent.invoke('hello', { channel: 'web:1' });
    expect((await reviewer.running)?.status).toBe('done');
    harness.agent.setReviewer(undefined);
    await harness.agent.invoke('again', { channel: 'web:1' });
    expect(builds).toBe(1);
  });

  it('is off with everyTurns 0', async () => {
    harness = await createHarness();
    const reviewer = new BackgroundReviewer(harness.agent, { everyTurns: 0 });
    harness.agent.setReviewer(reviewer);
    await harness.agent.invoke('hello');
    expect(reviewer.running).toBeUndefined();
    expect(harness.server.requests).toHaveLength(1);
  });
});
