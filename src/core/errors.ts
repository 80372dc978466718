/**
 * The error hierarchy. Every error operator raises on purpose is an {@link AgentError} with a
 * category and a computed `retryable` flag, so callers decide on retries without parsing text.
 * SDK errors are wrapped once, at the provider boundary (see `src/llm/classify-error.ts`).
 */

/** Where an error came from. */
export type ErrorCategory =
  | 'LLM'
  | 'PROVIDER'
  | 'TOOL'
  | 'BUDGET'
  | 'CANCELLATION'
  | 'PERMISSION'
  | 'CONFIGURATION'
  | 'INTERNAL';

/** What kind of provider failure it was; decides retry and compaction. */
export type ErrorKind =
  | 'RATE_LIMIT'
  | 'OVERLOADED'
  | 'SERVER_ERROR'
  | 'TIMEOUT'
  | 'CONTEXT_OVERFLOW'
  | 'UNKNOWN'
  | 'AUTH'
  | 'AUTH_PERMANENT'
  | 'BILLING'
  | 'MODEL_NOT_FOUND'
  | 'CONTENT_BLOCKED'
  | 'FORMAT_ERROR';

const retryableKinds: ReadonlySet<ErrorKind> = new Set([
  'RATE_LIMIT',
  'OVERLOADED',
  'SERVER_ERROR',
  'TIMEOUT',
  'CONTEXT_OVERFLOW',
  'UNKNOWN',
]);

/** Whether a provider failure of this kind may succeed when tried again. */
export function isRetryableKind(kind: ErrorKind): boolean {
  return retryableKinds.has(kind);
}

/** Base of all operator errors. */
export class AgentError extends Error {
  readonly category: ErrorCategory;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    message: string,
    options: { category: ErrorCategory; retryable: boolean; details?: Record<string, unknown>; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.category = options.category;
    this.retryable = options.retryable;
    this.details = options.details ?? {};
  }
}

/** The model answered something unusable (empty, malformed). Retryable. */
export class LLMError extends AgentError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, { category: 'LLM', retryable: true, details });
  }
}

/** A model provider call failed. `retryable` follows from {@link ErrorKind}. */
export class ProviderError extends AgentError {
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly kind: ErrorKind;
  /** Delay the provider asked for (`retry-after`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: { provider: string; kind: ErrorKind; statusCode?: number; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, {
      category: 'PROVIDER',
      retryable: isRetryableKind(options.kind),
      details: { provider: options.provider, kind: options.kind, statusCode: options.statusCode },
      cause: options.cause,
    });
    this.provider = options.provider;
    this.kind = options.kind;
    this.statusCode = options.statusCode;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A tool failed. Not retryable: the model sees the error and may try another way. */
export class ToolError extends AgentError {
  readonly toolName: string;
  constructor(message: string, toolName: string, details?: Record<string, unknown>) {
    super(message, { category: 'TOOL', retryable: false, details: { toolName, ...details } });
    this.toolName = toolName;
  }
}

/** The model asked for a tool that does not exist. */
export class ToolNotFoundError extends ToolError {
  constructor(toolName: string) {
    super(`Tool not found: ${toolName}`, toolName);
  }
}

/** A tool ran longer than it may. */
export class ToolTimeoutError extends ToolError {
  readonly timeoutMs: number;
  constructor(toolName: string, timeoutMs: number) {
    super(`Tool ${toolName} timed out after ${timeoutMs} ms`, toolName, { timeoutMs });
    this.timeoutMs = timeoutMs;
  }
}

/** A token, cost, time or round budget ran out. */
export class BudgetExhaustedError extends AgentError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, { category: 'BUDGET', retryable: false, details });
  }
}

/**
 * A turn ran out of time: it could not finish within its deadline (`turnTimeoutSeconds`), model
 * calls, retries and tools included. Not retryable. The turn is stopped and, as with any turn
 * that fails for good, the session is left as it was before the turn; the person should be told
 * it took too long (and may ask again, perhaps in smaller steps).
 */
export class TurnTimeoutError extends AgentError {
  /** The deadline, in milliseconds from the start of the turn. */
  readonly timeoutMs: number;
  /** `cause`: the failure of the last attempt, when one failed before the deadline. */
  constructor(timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`The turn did not finish within its deadline of ${formatDuration(timeoutMs)}`, { category: 'BUDGET', retryable: false, details: { timeoutMs }, cause: options.cause });
    this.timeoutMs = timeoutMs;
  }
}

/** `90 s`, `10 min`, `1.5 s`: a duration as a person reads it. */
function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${Number(seconds.toFixed(1))} s`;
}

/** The user or the system aborted the work. */
export class CancellationError extends AgentError {
  constructor(message = 'Aborted', details?: Record<string, unknown>) {
    super(message, { category: 'CANCELLATION', retryable: false, details });
  }
}

/** A policy (guardrail, whitelist, access rule) refused a tool. */
export class PermissionDeniedError extends AgentError {
  readonly toolName: string;
  constructor(toolName: string, reason: string) {
    super(`Permission denied for ${toolName}: ${reason}`, {
      category: 'PERMISSION',
      retryable: false,
      details: { toolName, reason },
    });
    this.toolName = toolName;
  }
}

/** Missing or invalid settings. */
export class ConfigurationError extends AgentError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, { category: 'CONFIGURATION', retryable: false, details });
  }
}

/** A bug: something that should not happen. */
export class InternalError extends AgentError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, { category: 'INTERNAL', retryable: false, details });
  }
}

/** Turns anything thrown into a message safe to show. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
