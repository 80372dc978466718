/**
 * Subagents through a real Agent, the real Anthropic SDK and the fake model server: spawn, wait,
 * send_input, close_agent, the limits, budgets, failures shared between children, loop warnings,
 * the parent's turn ending, and a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelMiddleware } from '../../src/llm/middleware.ts';
import { defineTool } from '../../src/tools/tool.ts';
import { inQueuedTask } from '../helpers/counted-slot.ts';
import { gateTool } from '../helpers/test-tools.ts';
import { childRequests, closeSetup, countResults, currentHarness, isChild, parentKey, parentResults, scriptParent, setup, spawnedId, toolNames, until } from '../helpers/subagent-setup.ts';

afterEach(closeSetup);
describe('subagents', () => {
  it('spawns a child that works with its own session and the handed-down tools, and wait returns its answer', async () => {
    const { agent, subagents } = await setup({ child: () => ({ text: 'found the bug in login.ts' }) });
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'Find the login bug.\nLook in src/.' } }] },
      (request) => ({ toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)) } }] }),
    ]);
    const result = await agent.invoke('look into the login bug');
    expect(result.text).toBe('parent done');
    const [spawned, waited] = await parentResults(agent);
    expect(waited).toBe('found the bug in login.ts');
    const id = spawnedId(spawned!);
    expect(spawned).toBe(`Subagent '${id}' spawned for task: Find the login bug.\nUse wait(agent_id='${id}') to get results.`);
    const [childRequest] = childRequests();
    expect(JSON.stringify(childRequest!.body.messages)).toContain('Look in src/.');
    expect(toolNames(childRequest!)).toContain('echo');
    for (const name of ['spawn_agent', 'send_input', 'wait', 'close_agent']) expect(toolNames(childRequest!)).not.toContain(name);
    const { records, spent } = await subagents.list();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id, task: 'Find the login bug.', status: 'done', sessionKey: `${parentKey}:agent:${id}` });
    expect(spent.children).toBe(1);
    // The child's session is kept.
    const childSession = await agent.sessions.open(`${parentKey}:agent:${id}`);
    expect(JSON.stringify(childSession.buildContext().messages)).toContain('found the bug in login.ts');
  });

  it("sends a child's model calls with the parent's request options and through its middleware", async () => {
    const seen: string[] = [];
    const middleware: ModelMiddleware = { name: 'seen', beforeRequest: (request) => (seen.push(request.model), request) };
    const { agent } = await setup({ agent: { requestOptions: { stopSequences: ['<END>'], metadata: { userId: 'hashed' } }, modelMiddleware: [middleware] } });
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'Count the files.' } }] },
      (request) => ({ toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)) } }] }),
    ]);
    await agent.invoke('count them');
    const [childRequest] = childRequests();
    expect(childRequest!.body).toMatchObject({ stop_sequences: ['<END>'], metadata: { user_id: 'hashed' } });
    expect(seen.length).toBe(currentHarness().server.requests.length);
  });

  it("hands the parent's queue slot to its child's model calls, so a child waiting on the model holds no slot either", async () => {
    const { agent } = await setup({ child: () => ({ text: 'child answer' }) });
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'look around' } }] },
      (request) => ({ toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)) } }] }),
    ]);
    const { result, counts, after } = await inQueuedTask((slot) => agent.invoke('look around for me', { slot }));
    expect(result.text).toBe('parent done');
    // The parent's three calls and the child's one.
    expect(childRequests()).toHaveLength(1);
    expect(currentHarness().server.requests).toHaveLength(4);
    expect(counts).toEqual({ leaves: 4, backs: 4 });
    expect(after).toEqual({ running: 0, away: 0 });
  });

  it('wait returns the answer, and the child is charged to the parent', async () => {
    const { agent, subagents } = await setup({ child: () => ({ text: 'the answer is 42', usage: { input: 1_000, output: 50 } }) });
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'compute' } }] },
      (request) => ({ toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)) } }] }),
    ]);
    await agent.invoke('compute it');
    const results = await parentResults(agent);
    expect(results[1]).toBe('the answer is 42');
    const { records, spent } = await subagents.list();
    expect(records[0]!.status).toBe('done');
    expect(spent.usage.input).toBe(1_000);
    expect(spent.usage.output).toBe(50);
    expect(records[0]!.cost).toBeGreaterThan(0);
  });

  it('refuses past the limit of children working at once, and names them', async () => {
    const gate = gateTool('slow');
    const { agent, subagents } = await setup({ settings: { maxRunning: 1 }, tools: [gate.tool], child: () => ({ toolCalls: [{ name: 'slow', arguments: {} }] }) });
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'one' } }, { id: 's2', name: 'spawn_agent', arguments: { task: 'two' } }] },
      { text: 'parent done' },
    ]);
    await agent.invoke('two things');
    const [first, second] = await parentResults(agent);
    const id = spawnedId(first!);
    expect(second).toContain(`Error: 1 subagents are already working (${id}), the most at once`);
    expect((await subagents.list()).records).toHaveLength(1);
    gate.release();
  });

  it('wait gives up after its timeout and says the child is still working; close_agent stops it; unknown ids are refused', async () => {
    const gate = gateTool('slow');
    const { agent, subagents } = await setup({ tools: [gate.tool], child: () => ({ toolCalls: [{ name: 'slow', arguments: {} }] }) });
    let id = '';
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'slow work' } }] },
      (request) => {
        id = spawnedId(JSON.stringify(request.body.messages));
        return { toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: id, timeout_seconds: 1 } }] };
      },
      () => ({ toolCalls: [{ id: 'c1', name: 'close_agent', arguments: { agent_id: id } }] }),
      () => ({ toolCalls: [{ id: 'w2', name: 'wait', arguments: { agent_id: 'zzzz' } }, { id: 'i1', name: 'send_input', arguments: { agent_id: id, message: 'more' } }] }),
      { text: 'parent done' },
    ]);
    await agent.invoke('slow');
    const results = await parentResults(agent);
    expect(results[1]).toMatch(new RegExp(`^Subagent '${id}' is still working \\(0 tool calls, \\d+ s so far\\)`));
    expect(results[2]).toBe(`Subagent '${id}' closed`);
    expect(results[3]).toBe("Error: No subagent 'zzzz' here. None is open.");
    expect(results[4]).toBe(`Error: Subagent '${id}' was closed.`);
    const [record] = (await subagents.list()).records;
    expect(record).toMatchObject({ status: 'stopped', closed: true, error: 'closed' });
  });

  it('send_input starts a finished child again on its own session', async () => {
    const answers = ['first answer', 'second answer'];
    const { agent } = await setup({ child: () => ({ text: answers.shift() ?? 'more' }) });
    let id = '';
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'part one' } }] },
      (request) => {
        id = spawnedId(JSON.stringify(request.body.messages));
        return { toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: id } }] };
      },
      () => ({ toolCalls: [{ id: 'i1', name: 'send_input', arguments: { agent_id: id, message: 'now part two' } }] }),
      () => ({ toolCalls: [{ id: 'w2', name: 'wait', arguments: { agent_id: id } }] }),
      { text: 'parent done' },
    ]);
    await agent.invoke('two parts');
    const results = await parentResults(agent);
    expect(results[1]).toBe('first answer');
    expect(results[2]).toContain(`Subagent '${id}' is working on your message.`);
    expect(results[3]).toBe('second answer');
    const second = childRequests()[1]!;
    // The same session: the second request carries the first exchange.
    expect(JSON.stringify(second.body.messages)).toContain('first answer');
    expect(JSON.stringify(second.body.messages)).toContain('now part two');
  });

  it('send_input to a working child is taken in once its current work is done, and wait returns both answers', async () => {
    const gate = gateTool('slow');
    const { agent } = await setup({
      tools: [gate.tool],
      child: (request) => {
        const text = JSON.stringify(request.body.messages);
        if (text.includes('also check B')) return { text: 'B checked' };
        return text.includes('tool_result') ? { text: 'A checked' } : { toolCalls: [{ name: 'slow', arguments: {} }] };
      },
    });
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'check A' } }] },
      (request) => ({ toolCalls: [{ id: 'i1', name: 'send_input', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)), message: 'also check B' } }] }),
      (request) => ({ toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)) } }] }),
      { text: 'parent done' },
    ]);
    const turn = agent.invoke('check');
    await until(() => currentHarness().server.requests.filter((request) => !isChild(request)).length >= 3);
    gate.release();
    await turn;
    const results = await parentResults(agent);
    expect(results[1]).toContain('it reads it once its current work is done');
    expect(results[2]).toBe('A checked\nB checked');
  });

  it('a child that fails, or runs over its token budget, is reported by wait and the parent goes on', async () => {
    const { agent, subagents } = await setup({
      settings: { maxTokens: 5_000 },
      child: (request) =>
        JSON.stringify(request.body.messages).includes('crash')
          ? { error: { status: 400, type: 'invalid_request_error', message: 'child request rejected' } }
          : { toolCalls: [{ name: 'echo', arguments: { text: 'x' } }], usage: { input: 4_000, output: 2_000 } },
    });
    const ids: string[] = [];
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'crash please' } }, { id: 's2', name: 'spawn_agent', arguments: { task: 'spend a lot' } }] },
      (request) => {
        const text = JSON.stringify(request.body.messages);
        ids.push(...[...text.matchAll(/Subagent '([0-9a-f]{4})' spawned/g)].map((match) => match[1]!));
        return { toolCalls: ids.map((id, index) => ({ id: `w${index}`, name: 'wait', arguments: { agent_id: id } })) };
      },
      { text: 'parent done' },
    ]);
    const result = await agent.invoke('risky');
    expect(result.text).toBe('parent done');
    const results = await parentResults(agent);
    expect(results[2]).toMatch(new RegExp(`^Error: Subagent '${ids[0]}' failed: .*child request rejected`));
    expect(results[3]).toBe(`Error: Subagent '${ids[1]}' was stopped: it used its token budget.`);
    const records = (await subagents.list()).records;
    expect(records.map((record) => record.status)).toEqual(['failed', 'over-budget']);
    // Only one call of the spender was made: it was stopped as the first answer passed the budget.
    expect(childRequests().filter((request) => JSON.stringify(request.body.messages).includes('spend a lot'))).toHaveLength(1);
  });

  it("shares a child's failures with its siblings, and warns of a call repeated in one child", async () => {
    const failing = defineTool({
      name: 'deploy',
      description: 'Deploys.',
      parameters: z.object({ target: z.string() }),
      async execute() {
        return { content: 'connection refused by deploy.internal:443', isError: true };
      },
    });
    let broken = 0;
    const { agent } = await setup({
      tools: [failing],
      child: (request) => {
        const text = JSON.stringify(request.body.messages);
        if (text.includes('task A') && broken < 3) {
          broken++;
          return { toolCalls: [{ name: 'deploy', arguments: { target: 'prod' } }] };
        }
        return { text: 'done' };
      },
    });
    const ids: string[] = [];
    scriptParent([
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'task A' } }] },
      (request) => {
        ids.push(spawnedId(JSON.stringify(request.body.messages)));
        return { toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: ids[0]! } }] };
      },
      { toolCalls: [{ id: 's2', name: 'spawn_agent', arguments: { task: 'task B' } }] },
      (request) => {
        ids.push(spawnedId(JSON.stringify(request.body.messages.at(-1))));
        return { toolCalls: [{ id: 'w2', name: 'wait', arguments: { agent_id: ids[1]! } }] };
      },
      { text: 'parent done' },
    ]);
    await agent.invoke('deploy');
    const childA = childRequests().filter((request) => JSON.stringify(request.body.messages).includes('task A'));
    // The third identical call's result carries the warning.
    expect(JSON.stringify(childA.at(-1)!.body.messages)).toContain('You have made this exact deploy call 3 times in a row');
    const childB = childRequests().find((request) => JSON.stringify(request.body.messages).includes('task B'))!;
    const note = JSON.stringify(childB.body.messages);
    expect(note).toContain('Failures the other subagents of this task met');
    expect(note).toContain(`${ids[0]}: deploy {\\"target\\":\\"prod\\"} -> connection refused by deploy.internal:443`);
    // Ephemeral: not written to B's session.
    const session = await agent.sessions.open(`${parentKey}:agent:${ids[1]}`);
    expect(JSON.stringify(session.buildContext().messages)).not.toContain('Failures the other subagents');
  });

  it('warns every child once the same call was made 10 times across them', async () => {
    const { agent } = await setup({ settings: { maxRunning: 4 }, child: (request) => (countResults(request) < 3 ? { toolCalls: [{ name: 'echo', arguments: { text: 'status' } }] } : { text: 'done' }) });
    const ids: string[] = [];
    scriptParent([
      { toolCalls: ['a', 'b', 'c', 'd'].map((task, index) => ({ id: `s${index}`, name: 'spawn_agent', arguments: { task: `check ${task}` } })) },
      (request) => {
        ids.push(...[...JSON.stringify(request.body.messages).matchAll(/Subagent '([0-9a-f]{4})' spawned/g)].map((match) => match[1]!));
        return { toolCalls: ids.map((id, index) => ({ id: `w${index}`, name: 'wait', arguments: { agent_id: id } })) };
      },
      { text: 'parent done' },
    ]);
    await agent.invoke('check all');
    // 4 children x 3 calls = 12 identical calls: from the 10th on, the result says so.
    const warned = childRequests().filter((request) => JSON.stringify(request.body.messages).includes('The subagents have made this exact echo call'));
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(warned[0]!.body.messages)).toMatch(/made this exact echo call 1\d times between them|made this exact echo call 10 times between them/);
  });

  it("stops children still working when the parent's answer ends, and /stop stops them at once", async () => {
    const gate = gateTool('slow');
    const { agent, subagents } = await setup({ tools: [gate.tool], child: () => ({ toolCalls: [{ name: 'slow', arguments: {} }] }) });
    scriptParent([{ toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'forgotten' } }] }, { text: 'parent done' }]);
    await agent.invoke('start and forget');
    await subagents.afterTurn();
    const [record] = (await subagents.list()).records;
    expect(record).toMatchObject({ status: 'stopped', error: 'its parent finished its answer without waiting for it' });

    // stopAll, as /stop calls it, during a turn.
    scriptParent([{ toolCalls: [{ id: 's2', name: 'spawn_agent', arguments: { task: 'again' } }] }, (request) => ({ toolCalls: [{ id: 'w', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)), timeout_seconds: 10 } }] }), { text: 'parent done' }]);
    const turn = agent.invoke('again');
    await until(() => subagents.lines().some((line) => line.status === 'running' && line.tool === 'slow'));
    expect(await subagents.stopAll()).toBe(1);
    await turn;
    expect((await subagents.list()).records[1]).toMatchObject({ status: 'stopped', error: 'stopped' });
  });

  it('a restart marks children that were working as interrupted; send_input starts one again on its session', async () => {
    const gate = gateTool('slow');
    const { agent, subagents, restart } = await setup({ tools: [gate.tool], child: (request) => (countResults(request) === 0 ? { toolCalls: [{ name: 'slow', arguments: {} }] } : { text: 'resumed and done' }) });
    scriptParent([{ toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'long job' } }] }, (request) => ({ toolCalls: [{ id: 'w', name: 'wait', arguments: { agent_id: spawnedId(JSON.stringify(request.body.messages)), timeout_seconds: 10 } }] }), { text: 'parent done' }]);
    const turn = agent.invoke('long job');
    await until(() => subagents.lines().some((line) => line.tool === 'slow'));
    const [id] = subagents.lines().map((line) => line.id);
    // The process "dies": a new agent and registry over the same store, the old ones left behind.
    const after = restart();
    const listed = await after.subagents.list();
    expect(listed.records[0]).toMatchObject({ id, status: 'interrupted', error: 'operator restarted while it worked' });
    agent.abort();
    await turn.catch(() => undefined);

    scriptParent([{ toolCalls: [{ id: 'i', name: 'send_input', arguments: { agent_id: id, message: 'go on' } }] }, { toolCalls: [{ id: 'w2', name: 'wait', arguments: { agent_id: id } }] }, { text: 'parent done' }]);
    await after.agent.invoke('resume it');
    const results = await parentResults(after.agent);
    expect(results.at(-1)).toBe('resumed and done');
  });

  it('at depth 1 children cannot spawn; with maxDepth 2 they can, and their children cannot', async () => {
    const { agent } = await setup({ settings: { maxDepth: 2 } });
    scriptParent([{ toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'delegate' } }] }, { text: 'parent done' }]);
    await agent.invoke('go');
    await until(() => childRequests().length >= 1);
    expect(toolNames(childRequests()[0]!)).toContain('spawn_agent');
  });

  it('refuses a working_dir outside the workspace, and a model for a non-admin turn', async () => {
    const { agent } = await setup();
    scriptParent([
      {
        toolCalls: [
          { id: 's1', name: 'spawn_agent', arguments: { task: 'x', working_dir: '../..' } },
          { id: 's2', name: 'spawn_agent', arguments: { task: 'x', working_dir: 'no-such-folder' } },
          { id: 's3', name: 'spawn_agent', arguments: { task: 'x', model: 'claude-haiku-4-5' } },
          { id: 's4', name: 'spawn_agent', arguments: { task: 'x', model: 'nonsense' } },
        ],
      },
      { text: 'parent done' },
    ]);
    await agent.invoke('bad', { turn: { sessionKey: parentKey, platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd: process.cwd(), roots: [process.cwd()] } } });
    const results = await parentResults(agent);
    expect(results[0]).toBe('Error: working_dir ../.. is outside the workspace.');
    expect(results[1]).toBe('Error: working_dir no-such-folder is not a folder.');
    expect(results[2]).toBe("Error: Only an admin's turn may choose a subagent's model; leave model out.");
    expect(results[3]).toBe("Error: Only an admin's turn may choose a subagent's model; leave model out.");

    scriptParent([{ toolCalls: [{ id: 's5', name: 'spawn_agent', arguments: { task: 'x', model: 'nonsense' } }] }, { text: 'parent done' }]);
    await agent.invoke('bad model');
    expect((await parentResults(agent)).at(-1)).toBe('Error: Could not start a subagent: Unknown model "nonsense"');
  });
});
