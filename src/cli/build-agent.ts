/**
 * Builds an Agent from the environment: model client, store, sessions and the built-in tools.
 * Shared by the terminal chat and (later) the gateway.
 */
import { Agent } from '../agent/agent.ts';
import { createModelClient } from '../llm/model-client.ts';
import { SessionManager } from '../session/session-manager.ts';
import { createStoreFromEnv } from '../store/from-env.ts';
import type { Store } from '../store/store.ts';
import { createBuiltinTools } from '../tools/builtin/index.ts';
import { createProfilePrompt } from './profile-prompt.ts';

/** An agent with the store it writes to (close it when done). */
export interface BuiltAgent {
  agent: Agent;
  store: Store;
}

/** Reads OPERATOR_MODEL, provider credentials and OPERATOR_HOME from `env`. */
export function buildAgentFromEnv(options: { sessionKey: string; profile?: string; env?: NodeJS.ProcessEnv; cwd?: string }): BuiltAgent {
  const env = options.env ?? process.env;
  const client = createModelClient(env);
  // Load the SDK while the person types; a failure shows on the first call.
  void client.provider.warm().catch(() => undefined);
  const store = createStoreFromEnv(env);
  const cwd = options.cwd ?? process.cwd();
  const agent = new Agent({
    provider: client.provider,
    model: client.model,
    modelInfo: client.info,
    sessions: new SessionManager(store),
    sessionKey: options.sessionKey,
    tools: createBuiltinTools({ cwd }),
    systemPrompt: createProfilePrompt(options.profile, env),
    cwd,
  });
  return { agent, store };
}
