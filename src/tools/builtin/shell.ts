/**
 * The `shell` tool: runs a command in the call's working directory through the sandbox, which
 * keeps operator's secrets and state from it (see `src/tools/sandbox/`). With a change recorder
 * in the context, the files the command creates, modifies or deletes in the workspace are
 * recorded for `/undo` and `/diff` (see `changes/workspace-snapshot.ts`).
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { CancellationError, errorMessage } from '../../core/errors.ts';
import { createNoSandbox } from '../sandbox/no-sandbox.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, workingDirectory } from './paths.ts';
import { turnFiles } from '../files/turn-files.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult } from './results.ts';
import { recordWorkspaceChanges, WorkspaceSnapshot } from '../changes/workspace-snapshot.ts';
import { runCommand } from './run-command.ts';
import type { CommandResult } from './run-command.ts';

/** Options of {@link createShellTool}. */
export interface ShellToolOptions extends BuiltinToolOptions {
  /**
   * Environment the command's allowlisted one is taken from when no `sandbox` is given (the
   * `none` sandbox is made from it). Default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Shell executable. Default `/bin/bash` when present, else `/bin/sh`. */
  shell?: string;
  /** Timeout when the model gives none. Default 10,000 ms (the provider's, see `tool-profile.ts`, in an agent). */
  defaultTimeoutMs?: number;
  /** Longest timeout the model may ask for. Default 600,000 ms. */
  maxTimeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL. Default 2,000. */
  killGraceMs?: number;
}

/** The arguments, the default timeout named as it is. */
function parametersWith(defaultTimeoutMs: number) {
  return z.object({
    command: z.string().min(1).describe('The shell command to execute.'),
    timeout_ms: z.int().min(1).optional().describe(`Timeout in milliseconds. Default: ${defaultTimeoutMs}.`),
  });
}

/** Creates the `shell` tool. */
export function createShellTool(options: ShellToolOptions = {}) {
  const shell = options.shell ?? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 10_000;
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const sandbox: Sandbox = options.sandbox ?? createNoSandbox({ env: options.env ?? process.env, reason: 'the shell tool was given no sandbox' });
  const isolation =
    sandbox.kind === 'bubblewrap'
      ? ` Commands run in a sandbox: the system's programs are read-only, the workspace is writable, HOME is a private /tmp, and nothing else of the machine is there.`
      : '';
  const parameters = parametersWith(defaultTimeoutMs);
  return defineTool({
    name: 'shell',
    machine: 'shell',
    description:
      `Run a command with ${shell} -c in the working directory and return its output (stdout, then stderr after ` +
      `"STDERR:"). Times out after timeout_ms (default ${defaultTimeoutMs}, at most ${maxTimeoutMs}); the command ` +
      `and everything it started are then killed. Nothing is interactive: stdin is closed.${isolation}`,
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const cwd = workingDirectory(options, context);
      const cwdInfo = await stat(cwd).catch(() => undefined);
      if (!cwdInfo?.isDirectory()) return errorResult(`working directory not found: ${cwd}`);
      const timeoutMs = Math.min(args.timeout_ms ?? defaultTimeoutMs, maxTimeoutMs);
      const writable = context.turn?.workspace?.roots ?? [cwd];
      // Where the command may write: what it changed there is found by comparing before and after.
      const snapshot = context.changes
        ? await WorkspaceSnapshot.take({ roots: writable, hidden: context.turn?.workspace?.hidden, files: turnFiles(fileAccessOf(options), { turn: context.turn }, cwd) })
        : undefined;
      let result: CommandResult;
      try {
        result = await runCommand({
          spawn: sandbox.spawnSpec({ shell, command: args.command, cwd, writable }),
          timeoutMs,
          signal: context.signal,
          onOutput: context.onOutput,
          killGraceMs: options.killGraceMs,
        });
      } catch (error) {
        return errorResult(`could not start ${shell}: ${errorMessage(error)}`);
      }
      // Also after a failure, a timeout or an abort: what the command changed stands all the same.
      const changesNote = snapshot && context.changes ? await recordWorkspaceChanges(snapshot, context.changes, { tool: 'shell', cwd }) : undefined;
      if (result.aborted) throw context.signal.reason instanceof Error ? context.signal.reason : new CancellationError();
      return formatResult(result, timeoutMs, changesNote);
    },
  });
}

function formatResult(result: CommandResult, timeoutMs: number, changesNote: string | undefined): ToolOutput {
  const sections: string[] = [];
  if (result.stdout.length > 0) sections.push(withoutFinalNewline(result.stdout));
  if (result.stderr.length > 0) sections.push(`STDERR:\n${withoutFinalNewline(result.stderr)}`);
  if (result.timedOut) sections.push(`[Command timed out after ${timeoutMs}ms]`);
  else if (result.exitCode === null) sections.push(`[Command was killed by ${result.exitSignal ?? 'a signal'}]`);
  else if (result.exitCode !== 0) sections.push(`[Exit code: ${result.exitCode}]`);
  if (sections.length === 0) sections.push('(no output)');
  if (changesNote !== undefined) sections.push(changesNote);
  return {
    content: sections.join('\n'),
    isError: result.timedOut || result.exitCode !== 0,
  };
}

function withoutFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
