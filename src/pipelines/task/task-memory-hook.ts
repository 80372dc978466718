/**
 * The task workflow's memory as a handler hook, on for a graph with `task_memory=true`. Before
 * each node it reads the workspace once (through the run's command runner: see
 * `workspace-index.ts`) and puts into the context `task.test_command` (the project's test command,
 * for a `tool` node's `{task.test_command}`) and, before an agent's step whose prompt names them,
 * `task.memory` (the state in its sections) and `task.context` (the context pack: goal, profile,
 * relevant files, last error, diff, test results, memory). After each node it records the attempt; a command's result
 * and its last error (a fatal one sets `task.fatal=true`, for the graph to route on); a person's
 * choice at a gate; the plan or summary a node is marked to give (`task_record="plan"` or
 * `"summary"`); and the files changed (`git status`). The state is kept in the context as `_task`
 * (stored with each checkpoint, so a resumed run goes on with it; left out of prompts, which get
 * it rendered).
 */
import { interpolate, type PipelineContext } from '../engine/pipeline-context.ts';
import type { HandlerHook } from '../handlers/handler.ts';
import type { CommandRunner } from '../handlers/tool-handler.ts';
import type { NodeResult, PipelineNode } from '../types.ts';
import { buildContextPack, contextPackText, defaultPackChars } from './context-pack.ts';
import { lastErrorOf } from './last-error.ts';
import { defaultMemoryChars, formatTaskMemory } from './task-format.ts';
import { recordAttempt, recordChanges, recordDecision, recordToolResult, taskStateOf, type TaskState } from './task-state.ts';
import { indexWorkspace, runWith, shellQuote, workspaceChanges, type WorkspaceIndex } from './workspace-index.ts';

/** The context key the state is kept under. */
export const taskStateKey = '_task';

/** Whether `attributes` (a graph's) turn the task memory on. */
export function taskMemoryOn(attributes: Readonly<Record<string, string>>): boolean {
  return attributes['task_memory']?.trim().toLowerCase() === 'true';
}

/** What the hook works with. */
export interface TaskMemoryOptions {
  runCommand: CommandRunner;
  signal: AbortSignal;
  /** What `{task.test_command}` runs when no test command was found: `pass` says so and succeeds, `fail` says so and fails. Default `pass`. */
  untested?: 'pass' | 'fail';
  memoryChars?: number;
  packChars?: number;
}

/** The hook of one run. */
export function createTaskMemoryHook(options: TaskMemoryOptions): HandlerHook {
  const run = runWith(options.runCommand, options.signal);
  let index: WorkspaceIndex | undefined;
  const noTests = `echo ${shellQuote('No test command found (no npm test, cargo, go, pytest or make test): nothing was verified.')}${options.untested === 'fail' ? '; exit 1' : ''}`;

  return {
    async beforeNode(node, context) {
      const state = taskStateOf(context.get(taskStateKey));
      index ??= await indexWorkspace(run);
      state.profile = index.profile;
      if (!index.git) state.changesTracked = false;
      context.set('task.test_command', index.profile.testCommands[0] ?? noTests);
      context.set('task.fatal', state.lastError?.category === 'fatal');
      // Rendered for the prompts that name them (the pack's search is not run for one that does not).
      const prompt = node.handlerType === 'codergen' ? node.prompt || node.label : '';
      const goal = context.getString('goal');
      const memory = formatTaskMemory(state, { goal, maxChars: options.memoryChars ?? defaultMemoryChars });
      if (prompt.includes('{task.memory}')) context.set('task.memory', memory);
      if (prompt.includes('{task.context}')) {
        const pack = await buildContextPack(run, state, { goal, index, memorySummary: memory });
        context.set('task.context', contextPackText(pack, options.packChars ?? defaultPackChars));
      }
      context.set(taskStateKey, state);
    },

    async afterNode(node, context, result, step) {
      if (node.handlerType === 'start' || node.handlerType === 'exit' || node.handlerType === 'conditional') return;
      const state = taskStateOf(context.get(taskStateKey));
      recordAttempt(state, { node: node.name, attempt: step.attempt, status: result.status, summary: result.failureReason ?? result.output ?? result.notes ?? '' });
      if (node.handlerType === 'tool') recordCommand(state, node, context, result);
      if (node.handlerType === 'wait.human' && step.final) recordDecision(state, node.name, result.preferredLabel ?? String(result.contextUpdates?.[`${node.name}.answer`] ?? ''));
      const recorded = node.attributes['task_record']?.trim();
      if (node.handlerType === 'codergen' && result.output && (recorded === 'plan' || recorded === 'summary')) state.longTerm[recorded] = result.output.slice(0, 4_000);
      if (node.handlerType === 'codergen' || node.handlerType === 'tool') recordChanges(state, await workspaceChanges(run));
      context.set('task.fatal', state.lastError?.category === 'fatal');
      context.set(taskStateKey, state);
      // One step's renderings: made afresh before the next, not stored with every checkpoint.
      context.delete('task.memory');
      context.delete('task.context');
    },
  };
}

/** A `tool` node's command, its result and its last error, into the state. */
function recordCommand(state: TaskState, node: PipelineNode, context: PipelineContext, result: NodeResult): void {
  // The context is still as the node found it (the engine merges the result after the hooks): the command as it ran.
  const command = interpolate(node.attributes.tool_command ?? '', context);
  const exitCode = result.contextUpdates?.[`${node.name}.exit_code`];
  const refusal = /^the command was refused: ([\s\S]*)$/.exec(result.failureReason ?? '')?.[1];
  const outcome = { exitCode: typeof exitCode === 'number' ? exitCode : null, output: result.output ?? '', ...(refusal !== undefined ? { refused: refusal } : {}) };
  const error = lastErrorOf(command, outcome);
  recordToolResult(state, { node: node.name, command, exitCode: outcome.exitCode, output: outcome.output }, error, command === context.getString('task.test_command'));
}
