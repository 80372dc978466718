/**
 * An Agent wired to the real Anthropic (or OpenAI) SDK pointed at the fake model server, with an
 * in-memory or filesystem store. Retries do not sleep; the delays asked for are recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../../src/agent/agent.ts';
import type { AgentOptions } from '../../src/agent/agent.ts';
import type { AgentEvent } from '../../src/agent/agent-events.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import { SessionManager } from '../../src/session/session-manager.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';

export interface Harness {
  server: FakeModelServer;
  agent: Agent;
  store: Store;
  sessions: SessionManager;
  events: AgentEvent[];
  /** The fs store's folder (fs driver only). */
  directory: string | undefined;
  /** Delays the agent asked to sleep before retries. */
  sleeps: number[];
  /** Event types in order, optionally only those in `only`. */
  types(only?: readonly string[]): string[];
  /** A second agent on the same store and server (e.g. after a "restart"). */
  newAgent(overrides?: Partial<AgentOptions>): Agent;
  close(): Promise<void>;
}

export interface HarnessOptions {
  protocol?: 'anthropic' | 'openai';
  storeDriver?: 'memory' | 'fs';
  agent?: Partial<AgentOptions>;
  server?: FakeModelServer;
}

export const testApiKey = 'sk-test-secret-key-0123456789';

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const server = options.server ?? (await startFakeModelServer());
  const protocol = options.protocol ?? 'anthropic';
  const provider =
    protocol === 'anthropic'
      ? createAnthropicProvider({ apiKey: testApiKey, baseURL: server.anthropicBaseURL })
      : createOpenAIProvider({ apiKey: testApiKey, baseURL: server.openaiBaseURL });
  const model = protocol === 'anthropic' ? 'claude-sonnet-4-6' : 'gpt-5.2';
  let directory: string | undefined;
  let store: Store;
  if (options.storeDriver === 'fs') {
    directory = mkdtempSync(join(tmpdir(), 'operator-agent-'));
    store = createStore({ driver: 'fs', base: directory });
  } else {
    store = createStore({ driver: 'memory' });
  }
  const sessions = new SessionManager(store);
  const sleeps: number[] = [];
  const events: AgentEvent[] = [];
  const make = (overrides: Partial<AgentOptions> = {}) =>
    new Agent({
      provider,
      model,
      modelInfo: getModelInfo(model),
      sessions: new SessionManager(store),
      sessionKey: 'test:conversation',
      cwd: directory ?? process.cwd(),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...options.agent,
      ...overrides,
    });
  const agent = make();
  agent.subscribe((event) => events.push(event));
  return {
    server,
    agent,
    store,
    directory,
    sessions,
    events,
    sleeps,
    types: (only) => events.map((event) => event.type).filter((type) => !only || only.includes(type)),
    newAgent: make,
    async close() {
      await store.close();
      if (!options.server) await server.close();
      if (directory) rmSync(directory, { recursive: true, force: true });
    },
  };
}
