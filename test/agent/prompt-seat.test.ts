/**
 * The system prompt is built per seat as well as per channel: an owner's turn and another seat's
 * turn in the same conversation (a job made in a group, run in the owner's direct messages) get
 * prompts of their own, so the conversation's own memory, which the builder leaves out of an
 * owner's prompt, never reaches the owner's turns; each keeps its bytes from turn to turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PromptContext } from '../../src/agent/system-prompt.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const channel = 'telegram:dm:1001';
const owner: TurnContext = { sessionKey: channel, platform: 'telegram', senderId: '1001', admin: true, scheduled: false, owner: true };
const job: TurnContext = { ...owner, scheduled: true, owner: false };

describe('the prompt by seat', () => {
  it("builds an owner's prompt and another seat's apart, and keeps each", async () => {
    const built: (boolean | undefined)[] = [];
    harness = await createHarness({
      agent: {
        systemPrompt: (context: PromptContext) => {
          built.push(context.owner);
          return context.owner ? 'OWNER PROMPT' : 'OTHER SEAT PROMPT';
        },
      },
    });
    harness.server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' });
    await harness.agent.invoke('hello', { channel, turn: owner });
    await harness.agent.invoke('a job', { channel, turn: job });
    await harness.agent.invoke('hello again', { channel, turn: owner });
    await harness.agent.invoke('in the terminal');
    // Built once for the owner (the third turn reuses it), once for the job, once for the terminal (an owner's).
    expect(built).toEqual([true, false, true]);
    const systems = harness.server.requests.map((request) => JSON.stringify(request.body.system));
    expect(systems[0]).toContain('OWNER PROMPT');
    expect(systems[1]).toContain('OTHER SEAT PROMPT');
    expect(systems[2]).toBe(systems[0]);
  });
});
