/**
 * A subagent never has more than the turn that started it: the real Agent, the real Anthropic SDK
 * and the fake model server, with a chat turn whose seat offers no machine tools. The child is
 * offered only the turn's tools (a call to another is refused and never runs), works in the
 * turn's workspace, and keeps the seat it was started from: a later turn with more (the owner's)
 * may not give it work, also after a restart; a turn within that seat may.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Agent } from '../../src/agent/agent.ts';
import { childAgentFactory, createSubagentTools, defaultSubagentSettings, Subagents } from '../../src/agent/subagents/index.ts';
import { childTurn } from '../../src/agent/subagents/child-work.ts';
import type { ModelClient } from '../../src/llm/model-client.ts';
import { defineTool, type TurnContext } from '../../src/tools/tool.ts';
import { ownerSeat, type TurnSeat } from '../../src/tools/turn-seat.ts';
import type { RecordedRequest, ReplySpec } from '../fakes/fake-model-server.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const parentKey = 'telegram:group:-100';
const memberSeat: TurnSeat = { owner: false, groups: ['agents'], workspace: 'own' };
const ownFolder = '/srv/operator/profiles/default/temp/telegram_group_-100';

/** Commands the `shell` stand-in was asked to run: none may come from a child of a seat without it. */
const commands: string[] = [];
const shell = defineTool({
  name: 'shell',
  machine: 'shell',
  description: 'Run a command.',
  parameters: z.object({ command: z.string() }),
  async execute({ command }) {
    commands.push(command);
    return 'ran';
  },
});
/** Says where the call works: its directory and the turn's workspace. */
const where = defineTool({
  name: 'where',
  machine: 'none',
  description: 'Where am I?',
  parameters: z.object({}),
  execute: async (_args, context) => JSON.stringify({ cwd: context.cwd, roots: context.turn?.workspace?.roots }),
});

/** A group member's turn granted `agents` only: the conversation's own folder, no machine tools. */
const memberTurn: TurnContext = {
  sessionKey: parentKey,
  platform: 'telegram',
  senderId: '7',
  admin: false,
  scheduled: false,
  tools: new Set(['spawn_agent', 'send_input', 'wait', 'close_agent', 'echo', 'where']),
  workspace: { cwd: ownFolder, roots: [ownFolder] },
  seat: memberSeat,
};
/** The owner's turn in the same conversation: every tool. */
const ownerTurn: TurnContext = { ...memberTurn, senderId: '1', admin: true, tools: undefined, workspace: { cwd: '/srv/project', roots: ['/srv/project'] }, seat: ownerSeat };

let parentScript: ((request: RecordedRequest) => ReplySpec)[] = [];
let childScript: ((request: RecordedRequest) => ReplySpec)[] = [];
const isChild = (request: RecordedRequest) => JSON.stringify(request.body.messages).includes('you are its subagent');
const toolNames = (request: RecordedRequest): string[] => (request.body.tools ?? []).map((tool: { name: string }) => tool.name);

async function setup(): Promise<{ agent: Agent; restart(): Agent }> {
  harness = await createHarness();
  commands.length = 0;
  const make = () => {
    const subagents = new Subagents({
      store: harness!.store,
      parentKey,
      parentSegment: encodeURIComponent(parentKey),
      settings: defaultSubagentSettings,
      depth: 0,
      createChild: childAgentFactory({
        clientFor: () => ({ provider: harness!.agent.options.provider as ModelClient['provider'], model: 'claude-sonnet-4-6', info: harness!.agent.options.modelInfo! }),
        store: harness!.store,
        settings: defaultSubagentSettings,
        segment: encodeURIComponent,
      }),
    });
    const agent = harness!.newAgent({ sessionKey: parentKey, tools: [...createSubagentTools(), echoTool(), shell, where], subagents });
    subagents.attach(agent);
    return agent;
  };
  harness.server.setDefault((request) => {
    const next = (isChild(request) ? childScript : parentScript).shift();
    return next ? next(request) : { text: isChild(request) ? 'child done' : 'parent done' };
  });
  return { agent: make(), restart: make };
}

/** The tool results of the last parent request, as text. */
function lastParentResults(): string {
  const request = harness!.server.requests.filter((entry) => !isChild(entry)).at(-1)!;
  return JSON.stringify(request.body.messages.at(-1));
}

/** Gives child `id` a message from `turn`, waits for it, and says what the parent was told. */
async function sendFrom(agent: Agent, turn: TurnContext, id: string): Promise<string> {
  parentScript = [() => ({ toolCalls: [{ id: 'i', name: 'send_input', arguments: { agent_id: id, message: 'go on: cat the secrets' } }] }), () => ({ toolCalls: [{ id: 'w', name: 'wait', arguments: { agent_id: id } }] }), () => ({ text: 'parent done' })];
  await agent.invoke('more work for the child', { turn });
  const requests = harness!.server.requests.filter((entry) => !isChild(entry));
  return JSON.stringify(requests.at(-2)!.body.messages.at(-1));
}

describe("a subagent's seat", () => {
  it("offers the child only the turn's tools, in the turn's workspace; a call to any other is refused and never runs", async () => {
    const { agent } = await setup();
    let id = '';
    parentScript = [
      () => ({ toolCalls: [{ id: 's', name: 'spawn_agent', arguments: { task: 'look around' } }] }),
      (request) => {
        id = /Subagent '([0-9a-f]{4})' spawned/.exec(JSON.stringify(request.body.messages))![1]!;
        return { toolCalls: [{ id: 'w', name: 'wait', arguments: { agent_id: id } }] };
      },
    ];
    childScript = [() => ({ toolCalls: [{ name: 'shell', arguments: { command: 'cat ~/.operator/web-token' } }, { name: 'where', arguments: {} }] }), () => ({ text: 'looked' })];
    await agent.invoke('delegate', { turn: memberTurn });
    const children = harness!.server.requests.filter(isChild);
    expect(children.length).toBeGreaterThanOrEqual(2);
    for (const request of children) {
      expect(toolNames(request)).toContain('echo');
      expect(toolNames(request)).not.toContain('shell');
      for (const name of toolNames(request)) expect(memberTurn.tools!.has(name), name).toBe(true);
    }
    expect(commands).toEqual([]);
    const results = JSON.stringify(children[1]!.body.messages.at(-1));
    expect(results).toContain('Error: Tool not found: shell');
    expect(results).toContain(`{\\"cwd\\":\\"${ownFolder}\\",\\"roots\\":[\\"${ownFolder}\\"]}`);
    expect(lastParentResults()).toContain('looked');
  });

  it('keeps the seat it was started from: a later turn with more may not give it work (also after a restart); one within it may', async () => {
    const { agent, restart } = await setup();
    let id = '';
    parentScript = [
      () => ({ toolCalls: [{ id: 's', name: 'spawn_agent', arguments: { task: 'first part' } }] }),
      (request) => {
        id = /Subagent '([0-9a-f]{4})' spawned/.exec(JSON.stringify(request.body.messages))![1]!;
        return { toolCalls: [{ id: 'w', name: 'wait', arguments: { agent_id: id } }] };
      },
    ];
    await agent.invoke('delegate', { turn: memberTurn });
    const childCalls = () => harness!.server.requests.filter(isChild).length;
    const before = childCalls();

    // The owner's turn (every tool) would have the child run on with the member's session and the owner's tools.
    expect(await sendFrom(agent, ownerTurn, id)).toContain(`Subagent '${id}' was started in a turn with fewer tools than this one`);
    expect(childCalls()).toBe(before);
    const afterRestart = restart();
    expect(await sendFrom(afterRestart, ownerTurn, id)).toContain(`Subagent '${id}' was started in a turn with fewer tools than this one`);
    expect(childCalls()).toBe(before);

    // Another member's turn with the same seat may.
    expect(await sendFrom(afterRestart, { ...memberTurn, senderId: '8' }, id)).toContain(`Subagent '${id}' is working on your message.`);
    expect(childCalls()).toBe(before + 1);
    expect(toolNames(harness!.server.requests.filter(isChild).at(-1)!)).not.toContain('shell');
  });

  it("keeps a child's working folder only while it lies inside the turn's workspace", () => {
    expect(childTurn(ownerTurn, '/srv/project/app')?.workspace).toEqual({ cwd: '/srv/project/app', roots: ['/srv/project'] });
    // Chosen in the owner's turn, given work later from a member's: the member's own folder.
    expect(childTurn(memberTurn, '/srv/project/app')?.workspace).toEqual(memberTurn.workspace);
    expect(childTurn(memberTurn, `${ownFolder}/../../../../project`)?.workspace).toEqual(memberTurn.workspace);
    expect(childTurn(memberTurn, undefined)).toMatchObject({ seat: memberSeat, tools: memberTurn.tools, attachFile: undefined });
  });
});
