/**
 * What extension handlers see of the agent: enough to observe and steer a session, not its
 * internals.
 */
import type { ModelInfo } from '../llm/catalog.ts';
import type { SessionManager } from '../session/session-manager.ts';
import type { SessionTree } from '../session/session-tree.ts';

/** Context usage relative to the model's window. */
export interface ContextUsage {
  tokens: number;
  contextWindow: number;
  /** `tokens / contextWindow`. */
  fraction: number;
  /** Whether `tokens` comes from the provider (true) or is estimated from text length. */
  measured: boolean;
}

/** The object passed to every extension handler. */
export interface ExtensionContext {
  readonly cwd: string;
  readonly sessionManager: SessionManager | undefined;
  readonly model: string;
  readonly modelInfo: ModelInfo | undefined;
  /** Abort signal of the running turn (an unaborted signal when idle). */
  readonly signal: AbortSignal;
  isIdle(): boolean;
  /** Holds the turn in PAUSED while `work` (e.g. a person's approval) is pending. */
  pauseWhile<T>(work: Promise<T> | (() => Promise<T>)): Promise<T>;
  hasPendingMessages(): boolean;
  /** Aborts the running turn. */
  abort(): void;
  getContextUsage(): ContextUsage;
  /** The most recently built system prompt. */
  getSystemPrompt(): string | undefined;
  /** Requests compaction after the current turn. */
  compact(): void;
  /** Compacts now; the agent must be idle. */
  runCompaction(instructions?: string): Promise<void>;
  /** Re-reads resources and clears the prompt cache. */
  reload(): Promise<unknown>;
  waitForIdle(): Promise<void>;
  newSession(): Promise<SessionTree>;
  fork(entryId?: string): Promise<SessionTree>;
  switchSession(sessionId: string): Promise<SessionTree>;
}
