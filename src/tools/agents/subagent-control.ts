/**
 * What the subagent tools (`spawn_agent`, `send_input`, `wait`, `close_agent`) need from the
 * agent that runs them: its children. The agent layer implements it (`src/agent/subagents/`);
 * tools see only this.
 */
import { errorMessage } from '../../core/errors.ts';
import { errorResult } from '../builtin/results.ts';
import type { ToolContext, ToolOutput } from '../tool.ts';

/** What `spawn_agent` asks for. */
export interface SpawnRequest {
  task: string;
  /** Where the child works, relative to the caller's working directory; inside the workspace. */
  workingDir?: string;
  /** A model id or alias instead of the parent's. */
  model?: string;
  /** Model calls the child may make per task or message. */
  maxTurns?: number;
}

/** How a child stands when `wait` returns. */
export type WaitOutcome =
  | { state: 'finished'; text: string }
  | { state: 'failed'; error: string; text: string }
  | { state: 'running'; toolCalls: number; seconds: number };

/** A refusal the model should read as is (unknown id, limit reached, ...). */
export class SubagentError extends Error {
  override name = 'SubagentError';
}

/** One agent's children, as its tools drive them. */
export interface SubagentControl {
  /** Starts a child on `request.task` in the background; resolves to its id. Throws {@link SubagentError}. */
  spawn(request: SpawnRequest, context: ToolContext): Promise<string>;
  /** Hands a running child a message after its current step, or starts a finished one on it; says which. */
  sendInput(id: string, message: string, context: ToolContext): Promise<string>;
  /** Waits up to `timeoutMs` for the child's current work; `signal` ends the wait (not the child). */
  wait(id: string, timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome>;
  /** Stops the child and forgets it (its session is kept). */
  close(id: string): Promise<void>;
}

/**
 * The shared reference pool of one parent's children, as one of them (or the parent) reaches it:
 * the writer is bound, so a caller cannot save in another's name.
 */
export interface ReferenceAccess {
  /** Saves `entries`; resolves to what the model is told (the new ids). Throws {@link SubagentError}. */
  add(entries: readonly { title: string; text: string }[]): Promise<string>;
  /** The best matches of `query`, at most `limit`, fenced as untrusted data (see `fenceReferences`). */
  search(query: string, limit: number): Promise<string>;
}

/** `work`'s output; a {@link SubagentError} or another failure becomes an error result the model reads (an abort is thrown). */
export async function asResult(context: ToolContext, work: () => Promise<ToolOutput | string>): Promise<ToolOutput | string> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SubagentError) return errorResult(error.message);
    context.signal.throwIfAborted();
    return errorResult(errorMessage(error));
  }
}
