/** Error results of the built-in tools: the model reads them, so they say what went wrong plainly. */
import { errorMessage } from '../../core/errors.ts';
import type { ToolOutput } from '../tool.ts';

/** A failed call: `Error: {message}`. */
export function errorResult(message: string): ToolOutput {
  return { content: `Error: ${message}`, isError: true };
}

/** The error code of a Node system error, if it is one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Turns a failure on `displayPath` (as the model wrote it) into an error result. An abort is not
 * a failure of the tool: when `signal` is aborted its reason is thrown instead.
 */
export function fileErrorResult(error: unknown, displayPath: string, signal?: AbortSignal): ToolOutput {
  signal?.throwIfAborted();
  switch (errorCode(error)) {
    case 'ENOENT':
      return errorResult(`file not found: ${displayPath}`);
    case 'EISDIR':
      return errorResult(`${displayPath} is a directory`);
    case 'ENOTDIR':
      return errorResult(`a parent of ${displayPath} is not a directory`);
    case 'EACCES':
    case 'EPERM':
      return errorResult(`permission denied: ${displayPath}`);
    default:
      return errorResult(`${displayPath}: ${errorMessage(error)}`);
  }
}
