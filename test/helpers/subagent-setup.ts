/**
 * A parent agent with subagents over the real Agent, the real Anthropic SDK and the fake model
 * server: children are answered by a script of their own, the parent by `scriptParent`.
 */
import { expect } from 'vitest';
import type { Agent, AgentOptions } from '../../src/agent/agent.ts';
import { childAgentFactory, createSubagentTools, defaultSubagentSettings, Subagents, type SubagentSettings } from '../../src/agent/subagents/index.ts';
import { ConfigurationError } from '../../src/core/errors.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';
import type { ModelClient } from '../../src/llm/model-client.ts';
import type { Store } from '../../src/store/store.ts';
import type { Tool } from '../../src/tools/tool.ts';
import type { RecordedRequest, ReplySpec } from '../fakes/fake-model-server.ts';
import { createHarness, type Harness } from './agent-harness.ts';
import { echoTool } from './test-tools.ts';

let harness: Harness | undefined;

/** Closes the setup's harness (call it in `afterEach`). */
export async function closeSetup(): Promise<void> {
  await harness?.close();
  harness = undefined;
}

/** The harness of the current setup. */
export function currentHarness(): Harness {
  if (!harness) throw new Error('no setup');
  return harness;
}

/** The parent's session key. */
export const parentKey = 'test:conversation';

type Scripted = ReplySpec | ((request: RecordedRequest) => ReplySpec);
let childReply: (request: RecordedRequest) => ReplySpec = () => ({ text: 'child answer' });
let parentScript: Scripted[] = [];

/** The parent agent with subagents; children are answered by `child`, the parent by {@link scriptParent}. */
export async function setup(options: { settings?: Partial<SubagentSettings>; tools?: Tool[]; child?: (request: RecordedRequest) => ReplySpec; agent?: Partial<AgentOptions>; storeDriver?: 'memory' | 'fs' } = {}) {
  harness = await createHarness({ storeDriver: options.storeDriver });
  const settings = { ...defaultSubagentSettings, ...options.settings };
  // A restart may bring a new store over the same folder.
  const make = (store: Store = harness!.store) => {
    const subagents = new Subagents({
      store,
      parentKey,
      parentSegment: encodeURIComponent(parentKey),
      settings,
      depth: 0,
      createChild: childAgentFactory({
        clientFor: (model) => {
          if (model !== 'claude-haiku-4-5') throw new ConfigurationError(`Unknown model "${model}"`);
          return { provider: harness!.agent.options.provider as ModelClient['provider'], model, info: getModelInfo(model) };
        },
        store,
        settings,
        segment: encodeURIComponent,
      }),
    });
    const agent = harness!.newAgent({ ...options.agent, tools: [...createSubagentTools(), echoTool(), ...(options.tools ?? [])], subagents });
    subagents.attach(agent);
    return { agent, subagents };
  };
  childReply = options.child ?? (() => ({ text: 'child answer' }));
  parentScript = [];
  harness.server.setDefault((request) => {
    if (isChild(request)) return childReply(request);
    const next = parentScript.shift() ?? { text: 'parent done' };
    return typeof next === 'function' ? next(request) : next;
  });
  return { ...make(), restart: make };
}

/** Replaces the parent's script (replies taken in order; functions see the request). */
export function scriptParent(replies: Scripted[]): void {
  parentScript = [...replies];
}

export function isChild(request: RecordedRequest): boolean {
  return JSON.stringify(request.body.messages).includes('you are its subagent');
}

export function childRequests(): RecordedRequest[] {
  return harness!.server.requests.filter(isChild);
}

export function toolNames(request: RecordedRequest): string[] {
  return (request.body.tools ?? []).map((tool: { name: string }) => tool.name);
}

/** The text of the tool results the parent got, in order. */
export async function parentResults(agent: Agent): Promise<string[]> {
  const results: string[] = [];
  for (const entry of (await agent.session()).entries()) {
    if (entry.type !== 'message' || entry.message.role !== 'tool') continue;
    for (const part of entry.message.content) if (part.type === 'tool-result') results.push(part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join(''));
  }
  return results;
}

/** The id in the last spawn result of `text`. */
export function spawnedId(text: string): string {
  const id = [...text.matchAll(/Subagent '([0-9a-f]{4})' spawned/g)].at(-1)?.[1];
  expect(id, text).toBeDefined();
  return id!;
}

/** Tool results in the request so far. */
export function countResults(request: RecordedRequest): number {
  return (JSON.stringify(request.body.messages).match(/"tool_result"/g) ?? []).length;
}

/** Resolves once `condition` holds; throws after `ms`. */
export async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
