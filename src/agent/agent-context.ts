/** Builds the {@link ExtensionContext} view of an Agent that extension handlers receive. */
import type { Agent } from './agent.ts';
import type { ExtensionContext } from './extension-context.ts';

/** The object passed to extension handlers: live getters over the agent, nothing copied. */
export function createAgentContext(agent: Agent): ExtensionContext {
  return {
    get cwd() {
      return agent.options.cwd ?? process.cwd();
    },
    get sessionManager() {
      return agent.sessions;
    },
    get model() {
      return agent.options.model;
    },
    get modelInfo() {
      return agent.options.modelInfo;
    },
    get signal() {
      return agent.signal;
    },
    isIdle: () => agent.phase === 'idle',
    pauseWhile: (work) => agent.pauseWhile(work),
    hasPendingMessages: () => agent.hasPendingMessages(),
    abort: () => agent.abort(),
    getContextUsage: () => agent.contextUsageNow(),
    getSystemPrompt: () => agent.getSystemPrompt(),
    compact: () => agent.compact(),
    runCompaction: async (instructions) => {
      await agent.runCompaction(instructions);
    },
    reload: () => agent.reload(),
    waitForIdle: () => agent.waitForIdle(),
    newSession: () => agent.newSession(),
    fork: (entryId) => agent.fork(entryId),
    switchSession: (sessionId) => agent.switchSession(sessionId),
  };
}
