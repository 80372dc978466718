/**
 * The modules a conversation's agent needs, gathered in one module so the runtime loads them with
 * one `import()` (`runtime.ts`, `agentModules`). Each dynamic import is a split point of the
 * bundle and one more module for Node's loader to resolve and link; seven, always loaded
 * together, had cut the code they share into dozens of files. bin/build.js puts what this module
 * reaches into the start's one chunk, which runs it as the start loads.
 */
export { Agent } from '../agent/agent.ts';
export { BackgroundReviewer } from '../agent/reviewer.ts';
export { createBuiltinTools, toolProfileFor } from '../tools/builtin/index.ts';
export { createWebFetchTool } from '../tools/net/web-fetch.ts';
export * as browser from '../browser/index.ts';
export * as subagents from '../agent/subagents/index.ts';
export * as code from '../tools/code/index.ts';
