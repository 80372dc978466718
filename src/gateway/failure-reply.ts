/**
 * What a person is told when their turn fails: what went wrong, and what helps. Failures that pass
 * with time say "try again in a moment"; those that only the bot's admin can fix (credentials,
 * billing, a model that does not exist) say to tell the admin, since trying again cannot help.
 */
import { AgentError, BudgetExhaustedError, ProviderError, type ErrorKind } from '../core/errors.ts';
import { unconfiguredProviderName } from '../llm/unconfigured-provider.ts';

const later = 'Please try again in a moment.';
const tellAdmin = "Please let the bot's admin know.";

/** Per kind: what happened, and what the person can do. */
const replies: Record<ErrorKind, [reason: string, advice: string]> = {
  RATE_LIMIT: ['the model provider is rate limiting us', later],
  OVERLOADED: ['the model provider is overloaded', later],
  SERVER_ERROR: ['the model provider had an internal error', later],
  TIMEOUT: ['the model provider did not answer in time', later],
  UNKNOWN: ['the model provider could not be reached', later],
  CONTEXT_OVERFLOW: ['the conversation is too long for the model even after summarizing', 'Send /new to start a fresh conversation.'],
  AUTH: ["the model provider did not accept this bot's credentials (its API key is wrong or expired)", tellAdmin],
  AUTH_PERMANENT: ["the model provider refused this bot's credentials access to the model", tellAdmin],
  BILLING: ["the bot's model provider account has run out of credit", tellAdmin],
  MODEL_NOT_FOUND: ['the configured model does not exist', tellAdmin],
  CONTENT_BLOCKED: ['the model provider blocked the content', 'Please rephrase and try again.'],
  FORMAT_ERROR: ['the model provider rejected the request', "Please try again; if it keeps happening, let the bot's admin know."],
};

/** A short, clear message for a failed turn: never a stack trace, never a secret. */
export function failureReply(error: unknown): string {
  // The stand-in's message names the settings to make and holds no secret: shown as is, once.
  if (error instanceof ProviderError && error.provider === unconfiguredProviderName) return `Sorry, I cannot answer yet. ${error.message}`;
  if (error instanceof ProviderError) {
    const [reason, advice] = replies[error.kind] ?? ['the model call failed', later];
    return `Sorry, I could not answer: ${reason}. ${advice}`;
  }
  if (error instanceof AgentError && error.category === 'CANCELLATION') return 'Stopped.';
  // A spending cap: which one, what was spent, when it resets (see `budget/budget-gate.ts`); or why
  // no cap could be checked, so nothing went out (on Workers: the spend object unreachable, the
  // caps' variable invalid), written for the person with a `reason`.
  if (error instanceof BudgetExhaustedError && (typeof error.details['scope'] === 'string' || typeof error.details['reason'] === 'string')) return error.message;
  // The kill switch, for a turn nobody's message waits on (a scheduled job's run: it is not made up
  // for after the resume; a person's message waits for it instead, and is told so).
  if (error instanceof BudgetExhaustedError && error.details['paused'] === true) return 'Not done: model calls are paused by an admin (/budget pause).';
  return 'Sorry, something went wrong while answering. Please try again.';
}

/**
 * The reason a failed turn was a refusal (the person's message was not answered for something
 * about the bot, not the message): no model configured, a model provider failing, a spending cap,
 * model calls paused. `undefined` for anything else (the person's own request was the trouble, as
 * a conversation too long or content blocked, or the failure is not one to name), which is told
 * every time. The reason is what the log and the console show, and what a notice is told once an
 * hour for (see `refusal-notices.ts`).
 */
export function refusalReason(error: unknown): string | undefined {
  if (error instanceof ProviderError && error.provider === unconfiguredProviderName) return 'no model configured';
  if (error instanceof ProviderError) return error.kind === 'CONTEXT_OVERFLOW' || error.kind === 'CONTENT_BLOCKED' ? undefined : `model provider failing (${error.kind})`;
  if (!(error instanceof BudgetExhaustedError)) return undefined;
  const { scope, period, reason, paused } = error.details;
  if (paused === true) return 'model calls paused';
  if (typeof scope === 'string') return `spending cap (${scope}${typeof period === 'string' ? `, ${period}` : ''})`;
  return typeof reason === 'string' ? `spending caps not checked (${reason})` : undefined;
}
