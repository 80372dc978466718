/**
 * The agent of one conversation on Workers: the same `Agent` as on Node (engine, retries,
 * compaction, the session tree), its session kept in the conversation's object through the
 * project's `Store`, its model reached through the official SDK over `fetch`. What needs a
 * machine (the shell, workspace files, the browser, the desktop, subagents) is not offered, and
 * the system prompt says which tools there are because it lists only these. Its model calls pass
 * the spending caps (`worker-spending.ts`).
 */
import { Agent } from '../agent/agent.ts';
import type { SpendGate } from '../agent/spend-gate.ts';
import type { AgentResources } from '../agent/agent-options.ts';
import { ConfigurationError } from '../core/errors.ts';
import { createModelClient, type ModelClient } from '../llm/model-client.ts';
import { createUnconfiguredClient } from '../llm/unconfigured-provider.ts';
import { SessionManager } from '../session/session-manager.ts';
import type { Store } from '../store/store.ts';
import type { Tool } from '../tools/tool.ts';
import { workerSpending } from './worker-spending.ts';
import type { WorkerEnv } from './worker-env.ts';

/** One model client per set of variables (an isolate's), shared by its conversations. */
const clients = new WeakMap<WorkerEnv, ModelClient>();

/** The configured model client, or a stand-in whose answers say what to configure. */
export function modelClientOf(env: WorkerEnv): ModelClient {
  let client = clients.get(env);
  if (!client) {
    const variables = env as unknown as Record<string, string | undefined>;
    try {
      client = createModelClient(variables);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      client = createUnconfiguredClient(error.message);
    }
    clients.set(env, client);
  }
  return client;
}

/** What a conversation's agent is made from. */
export interface ConversationAgentOptions {
  env: WorkerEnv;
  store: Store;
  sessionKey: string;
  /** The profile's resources (persona, skills, knowledge, memory), from KV. */
  resources?: AgentResources;
  /** Tools of the Worker beyond the resources' own (`schedule`). */
  tools?: readonly Tool[];
  /** The gate of the conversation's calls (its object keeps one, for the notice near a cap); unset: one of its own. */
  spend?: SpendGate;
}

/** A new agent for one conversation; its session is read from the store on first use. */
export function createConversationAgent(options: ConversationAgentOptions): Agent {
  const client = modelClientOf(options.env);
  return new Agent({
    provider: client.provider,
    model: client.model,
    modelInfo: client.info,
    sessions: new SessionManager(options.store),
    sessionKey: options.sessionKey,
    tools: options.tools,
    resources: options.resources,
    // Every model call is checked against the caps in the bot's spend object (refused if it is out of reach).
    spend: options.spend ?? workerSpending(options.env, options.sessionKey),
    // No approvals on Workers: a call a guardrail would ask about is refused.
  });
}
