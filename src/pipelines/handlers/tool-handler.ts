/**
 * The `tool` handler: runs the node's `tool_command` (its `{key}`s filled from the context) as a
 * shell command, under the same sandbox and guardrails as the agent's `shell` tool (the caller
 * gives the runner). Exit 0 succeeds; anything else fails with the output's end as the reason, so a
 * failure route (back to the step that fixes it) sees what went wrong. The output goes into the
 * context as `<node>.output` and `tool.output`, the exit code as `<node>.exit_code`.
 */
import { interpolate } from '../engine/pipeline-context.ts';
import type { NodeHandler } from './handler.ts';

/** What running a command gave. */
export interface CommandOutcome {
  exitCode: number | null;
  output: string;
  /** Set when a guardrail refused the command: it did not run. */
  refused?: string;
}

/** Runs a command for the pipeline; the signal stops it. */
export type CommandRunner = (command: string, options: { signal: AbortSignal; timeoutMs?: number }) => Promise<CommandOutcome>;

/** Characters of output kept in the context and the failure reason. */
const keptOutput = 8_000;

/** The `tool` handler over `runCommand`. */
export function createToolHandler(runCommand: CommandRunner): NodeHandler {
  return {
    async execute(node, context, run) {
      const template = node.attributes.tool_command;
      if (!template?.trim()) return { status: 'fail', failureReason: `node "${node.name}" has no tool_command` };
      const command = interpolate(template, context);
      const outcome = await runCommand(command, { signal: run.signal, timeoutMs: node.timeout ? node.timeout * 1000 : undefined });
      if (outcome.refused) return { status: 'fail', failureReason: `the command was refused: ${outcome.refused}`, contextUpdates: { [`${node.name}.exit_code`]: null } };
      const output = tail(outcome.output);
      const updates = { [`${node.name}.output`]: output, [`${node.name}.exit_code`]: outcome.exitCode, 'tool.output': output, exit_code: outcome.exitCode };
      if (outcome.exitCode === 0) return { status: 'success', output, contextUpdates: updates };
      return { status: 'fail', output, failureReason: `\`${command}\` exited with ${outcome.exitCode ?? 'a signal'}${output ? `:\n${output}` : ''}`, contextUpdates: updates };
    },
  };
}

function tail(text: string): string {
  return text.length > keptOutput ? `[...]\n${text.slice(-keptOutput)}` : text;
}
