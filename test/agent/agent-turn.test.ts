import { afterEach, describe, expect, it } from 'vitest';
import { createExtension } from '../../src/agent/extensions.ts';
import type { Message } from '../../src/llm/types.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool, gateTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const agentOwn = ['input', 'before_agent_start', 'context', 'message_end', 'save_point', 'agent_end', 'settled', 'tool_call', 'tool_result', 'turn_start', 'engine_end'];

describe('Agent turn', () => {
  it('follows the 12 steps in order and persists user and answer once', async () => {
    harness = await createHarness();
    harness.server.enqueue({ text: 'Hello there!' });
    const result = await harness.agent.invoke('hi', { channel: 'web:1' });
    expect(result.text).toBe('Hello there!');
    expect(harness.types(agentOwn)).toEqual([
      'input',
      'before_agent_start',
      'context',
      'message_end', // user message, persisted once
      'turn_start',
      'message_end', // assistant
      'engine_end',
      'save_point',
      'agent_end',
      'settled',
    ]);
    const context = (await harness.agent.session()).buildContext();
    expect(context.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(harness.agent.phase).toBe('idle');
    expect(harness.agent.state).toBe('IDLE');
    const transitions = harness.events.filter((event) => event.type === 'state_change').map((event) => (event.type === 'state_change' ? `${event.from}->${event.to}` : ''));
    expect(transitions).toEqual(['IDLE->INITIALIZING', 'INITIALIZING->RUNNING', 'RUNNING->COMPLETING', 'COMPLETING->IDLE']);
  });

  it('sends the history of earlier turns and a byte-identical system prompt', async () => {
    harness = await createHarness();
    harness.server.enqueue({ text: 'one' }, { text: 'two' });
    await harness.agent.invoke('first', { channel: 'web:1' });
    await harness.agent.invoke('second', { channel: 'web:1' });
    const [a, b] = harness.server.requests;
    expect(JSON.stringify(a!.body.system)).toBe(JSON.stringify(b!.body.system));
    expect(b!.body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('refuses a second invoke while busy, at once', async () => {
    const gate = gateTool();
    harness = await createHarness({ agent: { tools: [gate.tool] } });
    harness.server.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'done' });
    const running = harness.agent.invoke('go');
    await gate.started;
    expect(harness.agent.phase).toBe('turn');
    await expect(harness.agent.invoke('again')).rejects.toThrow(/busy/);
    await expect(harness.agent.runCompaction()).rejects.toThrow(/busy/);
    gate.release();
    await running;
    expect(harness.agent.phase).toBe('idle');
  });

  it('lets extensions replace input, system prompt and context, and survives their errors', async () => {
    const extension = await createExtension('test', (api) => {
      api.on('input', (event) => ({ text: `${event.text} (edited)` }));
      api.on('before_agent_start', () => ({ systemPrompt: 'REPLACED PROMPT' }));
      api.on('context', (event) => ({ messages: event.messages.filter((message: Message) => message.role !== 'assistant') }));
      api.on('agent_end', () => {
        throw new Error('extension bug');
      });
    });
    harness = await createHarness({ agent: { extensions: [extension] } });
    harness.server.enqueue({ text: 'a' }, { text: 'b' });
    await harness.agent.invoke('first');
    const result = await harness.agent.invoke('second');
    expect(result.text).toBe('b');
    const request = harness.server.requests[1]!.body;
    expect(JSON.stringify(request.system)).toContain('REPLACED PROMPT');
    expect(request.messages.map((message: { role: string }) => message.role)).toEqual(['user']);
    expect(JSON.stringify(request.messages)).toContain('second (edited)');
    expect(harness.agent.extensionErrors.map((failure) => failure.message)).toEqual(['extension bug', 'extension bug']);
  });

  it('runs parallel tool calls and sends every result back', async () => {
    const calls: string[] = [];
    harness = await createHarness({ agent: { tools: [echoTool(calls)] } });
    harness.server.enqueue(
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }, { name: 'echo', arguments: { text: 'b' } }] },
      { text: 'both echoed' },
    );
    const result = await harness.agent.invoke('echo twice');
    expect(result.text).toBe('both echoed');
    expect(calls.sort()).toEqual(['a', 'b']);
    const second = harness.server.requests[1]!.body;
    const results = second.messages.at(-1).content;
    expect(results.map((block: { type: string }) => block.type)).toEqual(['tool_result', 'tool_result']);
    expect(JSON.stringify(results)).toContain('echo: a');
    const roles = (await harness.agent.session()).buildContext().messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  it('lets a tool_call handler block and a tool_result handler patch and terminate', async () => {
    const calls: string[] = [];
    const extension = await createExtension('policy', (api) => {
      api.on('tool_call', (event) => (event.call.arguments.text === 'forbidden' ? { block: true, reason: 'not this one' } : undefined));
      api.on('tool_result', (event) => ({ content: [{ type: 'text', text: `${event.content.map((part) => (part.type === 'text' ? part.text : '')).join('')} [patched]` }] }));
      api.on('tool_result', (event) => (JSON.stringify(event.content).includes('[patched]') ? { terminate: true } : undefined));
    });
    harness = await createHarness({ agent: { tools: [echoTool(calls)], extensions: [extension] } });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'forbidden' } }, { name: 'echo', arguments: { text: 'fine' } }] });
    const result = await harness.agent.invoke('try');
    // Both results were patched and asked to terminate: no follow-up model call.
    expect(harness.server.requests).toHaveLength(1);
    expect(calls).toEqual(['fine']);
    const tools = result.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(tools[0])).toContain('tool call blocked: not this one');
    expect(JSON.stringify(tools[1])).toContain('echo: fine [patched]');
  });

  it('queues follow-ups after the turn and injects steering between tool rounds', async () => {
    const gate = gateTool();
    harness = await createHarness({ agent: { tools: [gate.tool] } });
    harness.server.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'first answer' }, { text: 'follow-up answer' });
    const running = harness.agent.invoke('start');
    await gate.started;
    harness.agent.steer('steer: use the short form');
    harness.agent.followUp('and then this');
    expect(harness.agent.hasPendingMessages()).toBe(true);
    gate.release();
    const result = await running;
    expect(result.text).toBe('first answer');
    expect(result.followUps.map((turn) => turn.text)).toEqual(['follow-up answer']);
    // The steering message sits after the tool result in the second request.
    const second = JSON.stringify(harness.server.requests[1]!.body.messages.at(-1));
    expect(second).toContain('steer: use the short form');
    const third = JSON.stringify(harness.server.requests[2]!.body.messages.at(-1));
    expect(third).toContain('and then this');
    expect(harness.types(['steering_injected', 'settled'])).toEqual(['steering_injected', 'settled']);
  });

  it('aborts a running turn, keeps the person\'s message and leaves a sendable history', async () => {
    const gate = gateTool();
    harness = await createHarness({ agent: { tools: [gate.tool] } });
    harness.server.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] });
    const running = harness.agent.invoke('long job');
    await gate.started;
    harness.agent.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    harness.server.enqueue({ text: 'ok after abort' });
    const next = await harness.agent.invoke('are you there?');
    expect(next.text).toBe('ok after abort');
    // Every tool_use in the request has a tool_result.
    const messages = harness.server.requests.at(-1)!.body.messages;
    const uses = messages.flatMap((message: { content: { type: string; id?: string }[] }) => message.content.filter((block) => block.type === 'tool_use').map((block) => block.id));
    const results = messages.flatMap((message: { content: { type: string; tool_use_id?: string }[] }) => message.content.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id));
    expect(uses.length).toBeGreaterThan(0);
    expect(results).toEqual(uses);
  });
});
