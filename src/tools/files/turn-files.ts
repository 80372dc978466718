/**
 * The file worker of one tool call: which conversation it belongs to and what it may see, from
 * the call's turn (its workspace and offered tools) or, outside a chat (the terminal, a test),
 * the working directory alone.
 */
import { createNoSandbox } from '../sandbox/no-sandbox.ts';
import type { TurnContext } from '../tool.ts';
import { FileAccess, type FileView } from './file-access.ts';
import { FileWorkerError, FileWorkerTimeoutError, type FileCallOptions } from './file-worker.ts';
import { errorResult, fileErrorResult } from '../builtin/results.ts';
import type { ToolOutput } from '../tool.ts';

/** Tools that change files: a turn offered any of them sees its roots writable. */
const changingTools = ['write_file', 'edit_file', 'apply_patch', 'shell'];

/** The key of the worker outside any chat. */
export const localKey = 'local';

let fallback: FileAccess | undefined;

/**
 * The file access used when a tool is made without one (tests, scripts): workers unconfined but for
 * the allowlisted environment, as commands are without a sandbox.
 */
export function defaultFileAccess(): FileAccess {
  return (fallback ??= new FileAccess({ sandbox: createNoSandbox({ env: process.env, reason: 'no sandbox was given to the file tools' }) }));
}

/** A call's way to its worker. */
export interface TurnFiles {
  readonly view: FileView;
  call<Result>(op: string, args: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<Result>;
}

/** The worker of the call in `context`, working in `cwd` (the call's absolute working directory). */
export function turnFiles(access: FileAccess, context: { turn?: Pick<TurnContext, 'sessionKey' | 'workspace' | 'tools'>; signal?: AbortSignal }, cwd: string): TurnFiles {
  const turn = context.turn;
  const workspace = turn?.workspace;
  const view: FileView = {
    cwd,
    roots: workspace?.roots ?? [cwd],
    writable: turn?.tools === undefined || changingTools.some((name) => turn.tools!.has(name)),
    hidden: workspace?.hidden ?? [],
  };
  return filesIn(access, turn?.sessionKey ?? localKey, view, context.signal);
}

/** The worker of conversation `key` with `view` (`local` outside any chat). */
export function filesIn(access: FileAccess, key: string, view: FileView, signal?: AbortSignal): TurnFiles {
  return {
    view,
    call: <Result>(op: string, args: Record<string, unknown>, options: Partial<FileCallOptions> = {}) =>
      access.call<Result>(key, view, op, args, { signal, timeoutMs: options.timeoutMs }),
  };
}

/**
 * The error result for a failed worker call on `displayPath`: a time limit or a stopped worker is
 * said as such; a file system error as the file tools say it; an abort is thrown.
 */
export function workerErrorResult(error: unknown, displayPath: string, what: string, signal?: AbortSignal): ToolOutput {
  signal?.throwIfAborted();
  if (error instanceof FileWorkerTimeoutError) return errorResult(`${what} was stopped: ${error.message}. Narrow it (a simpler pattern, a smaller folder) and try again.`);
  if (error instanceof FileWorkerError && error.code === 'EWORKER') return errorResult(`${what} failed: ${error.message}`);
  return fileErrorResult(error, displayPath, signal);
}
