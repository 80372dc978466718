/**
 * A chat turn offers only the tools its person may use there (`turn.tools`) and works in its own
 * workspace (`turn.workspace`): the model sees only those tools, a call to another is refused,
 * the prompt names the turn's working directory, and equal offers keep the same bytes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type TurnContext } from '../../src/tools/tool.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const names = (request: { body: { tools?: { name: string }[] } }) => (request.body.tools ?? []).map((tool) => tool.name);

function setUp() {
  const echoed: string[] = [];
  const cwds: string[] = [];
  const where = defineTool({
    name: 'where',
    machine: 'read',
    description: 'Says where it runs.',
    parameters: z.object({}),
    async execute(_args, context) {
      cwds.push(context.cwd);
      return context.cwd;
    },
  });
  return { echoed, cwds, tools: [echoTool(echoed), where] };
}

const turn = (tools: ReadonlySet<string> | undefined, cwd = '/tmp/conversation'): TurnContext => ({
  sessionKey: 'telegram:group:-1',
  platform: 'telegram',
  senderId: '7',
  admin: false,
  scheduled: false,
  tools,
  workspace: { cwd, roots: [cwd] },
});

describe('tools offered per turn', () => {
  it('offers only the named tools and refuses a call to another', async () => {
    const { echoed, cwds, tools } = setUp();
    harness = await createHarness({ agent: { tools } });
    const onlyWhere = new Set(['where']);
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'sneaky' } }, { name: 'where', arguments: {} }] }, { text: 'done' });
    await harness.agent.invoke('hi', { channel: 'telegram:group:-1', turn: turn(onlyWhere) });
    const [first, second] = harness.server.requests;
    expect(names(first!)).toEqual(['where']);
    expect(echoed).toEqual([]);
    expect(JSON.stringify(second!.body.messages)).toMatch(/echo/i);
    // The tool ran in the turn's workspace, and the prompt names it.
    expect(cwds).toEqual(['/tmp/conversation']);
    expect(JSON.stringify(first!.body.system)).toContain('Current working directory: /tmp/conversation');
  });

  it('keeps the bytes of equal offers, and offers everything without a turn', async () => {
    const { tools } = setUp();
    harness = await createHarness({ agent: { tools } });
    const offer = new Set(['where']);
    harness.server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
    await harness.agent.invoke('one', { channel: 'c', turn: turn(offer) });
    await harness.agent.invoke('two', { channel: 'c', turn: turn(new Set(['where'])) });
    await harness.agent.invoke('three', { channel: 'c' });
    const [one, two, three] = harness.server.requests;
    expect(JSON.stringify(two!.body.system)).toBe(JSON.stringify(one!.body.system));
    expect(JSON.stringify(two!.body.tools)).toBe(JSON.stringify(one!.body.tools));
    expect(names(three!)).toEqual(['echo', 'where']);
    expect(JSON.stringify(three!.body.system)).not.toBe(JSON.stringify(one!.body.system));
  });

  it("has a child repeat the last turn's offer and workspace byte for byte", async () => {
    const { tools } = setUp();
    harness = await createHarness({ agent: { tools } });
    harness.server.enqueue({ text: 'parent' }, { text: 'child' });
    await harness.agent.invoke('hi', { channel: 'c', turn: turn(new Set(['where'])) });
    const child = await harness.agent.spawnChild({ tools: ['where'] });
    await child.invoke('review', { channel: 'c' });
    const [parent, review] = harness.server.requests;
    expect(JSON.stringify(review!.body.tools)).toBe(JSON.stringify(parent!.body.tools));
    expect(JSON.stringify(review!.body.system)).toBe(JSON.stringify(parent!.body.system));
  });
});
