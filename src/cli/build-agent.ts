/**
 * Builds an Agent from the environment: model client, store, sessions and the built-in tools.
 * Shared by the terminal chat and (later) the gateway.
 */
import { join } from 'node:path';
import { Agent } from '../agent/agent.ts';
import { loadExtensionsFromDirectory } from '../agent/extensions.ts';
import type { ExtensionFailure } from '../agent/extensions.ts';
import { createModelClient } from '../llm/model-client.ts';
import { SessionManager } from '../session/session-manager.ts';
import { createStoreFromEnv, operatorHome } from '../store/from-env.ts';
import type { Store } from '../store/store.ts';
import { createBuiltinTools } from '../tools/builtin/index.ts';
import { createProfilePrompt } from './profile-prompt.ts';

/** An agent with the store it writes to (close it when done). */
export interface BuiltAgent {
  agent: Agent;
  store: Store;
  /** Extensions that could not be loaded. */
  failures: ExtensionFailure[];
}

/**
 * Reads OPERATOR_MODEL, provider credentials and OPERATOR_HOME from `env`, and loads the
 * extensions in `OPERATOR_HOME/extensions/`. Extensions that fail to load are returned in
 * `failures` for the caller to show; they never stop the agent.
 */
export async function buildAgentFromEnv(options: { sessionKey: string; profile?: string; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<BuiltAgent> {
  const env = options.env ?? process.env;
  const client = createModelClient(env);
  // Load the SDK while the person types; a failure shows on the first call.
  void client.provider.warm().catch(() => undefined);
  const store = createStoreFromEnv(env);
  const cwd = options.cwd ?? process.cwd();
  const { extensions, failures } = await loadExtensionsFromDirectory(join(operatorHome(env), 'extensions'));
  const agent = new Agent({
    provider: client.provider,
    model: client.model,
    modelInfo: client.info,
    sessions: new SessionManager(store),
    sessionKey: options.sessionKey,
    tools: createBuiltinTools({ cwd }),
    systemPrompt: createProfilePrompt(options.profile, env),
    extensions,
    cwd,
  });
  return { agent, store, failures };
}
