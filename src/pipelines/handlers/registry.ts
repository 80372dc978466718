/**
 * The handlers operator runs, by node type. `codergen` and `tool` need the caller's agent and
 * command runner (the conversation's profile, tools, sandbox and guardrails; see the CLI and the
 * chat's pipeline runner). `stack.manager_loop` needs the engine's `loadChild` (pipelines looked
 * up by name) to run its child.
 */
import { fanInHandler, passThroughHandler } from './basic-handlers.ts';
import { createCodergenHandler, type CodergenBackend, type OutputReader } from './codergen-handler.ts';
import type { HandlerRegistry, NodeHandler } from './handler.ts';
import { managerLoopHandler } from './manager-loop-handler.ts';
import { parallelHandler } from './parallel-handler.ts';
import { createToolHandler, type CommandRunner } from './tool-handler.ts';
import { waitHumanHandler } from './wait-human-handler.ts';

/** What the handlers that do real work need. */
export interface HandlerServices {
  codergen: CodergenBackend;
  runCommand: CommandRunner;
  /** Reads a `codergen` node's declared `outputs` from its answer; unset: such nodes fail saying so. */
  readOutputs?: OutputReader;
}

/** Every handler, over `services`. */
export function createHandlerRegistry(services: HandlerServices): HandlerRegistry {
  return new Map<string, NodeHandler>([
    ['start', passThroughHandler],
    ['exit', passThroughHandler],
    ['conditional', passThroughHandler],
    ['codergen', createCodergenHandler(services.codergen, services.readOutputs)],
    ['wait.human', waitHumanHandler],
    ['tool', createToolHandler(services.runCommand)],
    ['parallel', parallelHandler],
    ['parallel.fan_in', fanInHandler],
    ['stack.manager_loop', managerLoopHandler],
  ]);
}
