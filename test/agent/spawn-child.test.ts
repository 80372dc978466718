import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';
import { defineTool } from '../../src/tools/tool.ts';
import { z } from 'zod';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('spawnChild', () => {
  it('shares system prompt bytes and tools, runs only whitelisted tools, persists nothing', async () => {
    const echoed: string[] = [];
    const noted: string[] = [];
    const note = defineTool({
      name: 'note',
      description: 'Write a note.',
      parameters: z.object({ text: z.string() }),
      async execute({ text }) {
        noted.push(text);
        return 'noted';
      },
    });
    harness = await createHarness({ agent: { tools: [echoTool(echoed), note] } });
    harness.server.enqueue({ text: 'parent answer' });
    await harness.agent.invoke('hello', { channel: 'telegram:1' });
    const parentRequest = harness.server.requests[0]!;
    const parentEntries = (await harness.agent.session()).entries().length;

    const child = await harness.agent.spawnChild({ tools: ['note'] });
    harness.server.enqueue(
      { toolCalls: [{ name: 'echo', arguments: { text: 'not allowed' } }, { name: 'note', arguments: { text: 'remember this' } }] },
      { text: 'child done' },
    );
    const result = await child.invoke('review the conversation', { channel: 'telegram:1' });
    expect(result.text).toBe('child done');
    const childRequest = harness.server.requests[1]!;
    expect(JSON.stringify(childRequest.body.system)).toBe(JSON.stringify(parentRequest.body.system));
    expect(JSON.stringify(childRequest.body.tools)).toBe(JSON.stringify(parentRequest.body.tools));
    expect(echoed).toEqual([]);
    expect(noted).toEqual(['remember this']);
    expect(JSON.stringify(harness.server.requests[2]!.body.messages)).toContain('not allowed here');
    expect((await harness.agent.session()).entries().length).toBe(parentEntries);
  });
});
