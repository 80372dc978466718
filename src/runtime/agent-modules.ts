/**
 * The modules a conversation's agent needs, gathered in one module so the runtime loads them with
 * one `import()` (`runtime.ts`, `agentModules`). Each dynamic import is a split point of the
 * bundle: seven of them, always loaded together, cut the code they share into dozens of small
 * files, and Node's module loader charges every file it resolves, reads and links (about 0.2-0.5
 * ms each on Node 20) before the first reply.
 */
export { Agent } from '../agent/agent.ts';
export { BackgroundReviewer } from '../agent/reviewer.ts';
export { createBuiltinTools, toolProfileFor } from '../tools/builtin/index.ts';
export { createWebFetchTool } from '../tools/net/web-fetch.ts';
export * as browser from '../browser/index.ts';
export * as subagents from '../agent/subagents/index.ts';
export * as code from '../tools/code/index.ts';
