/** What a person is told when their turn fails. */
import { AgentError, ProviderError } from '../core/errors.ts';
import { unconfiguredProviderName } from '../llm/unconfigured-provider.ts';

/** A short, clear message for a failed turn: never a stack trace, never a secret. */
export function failureReply(error: unknown): string {
  if (error instanceof ProviderError && error.provider === unconfiguredProviderName) return error.message;
  if (error instanceof ProviderError) {
    const reasons: Record<string, string> = {
      RATE_LIMIT: 'the model provider is rate limiting us',
      OVERLOADED: 'the model provider is overloaded',
      SERVER_ERROR: 'the model provider had an internal error',
      TIMEOUT: 'the model provider did not answer in time',
      CONTEXT_OVERFLOW: 'the conversation is too long for the model even after summarizing',
      AUTH: 'the model provider refused our credentials',
      AUTH_PERMANENT: 'the model provider refused access',
      BILLING: 'the model provider account has run out of credit',
      MODEL_NOT_FOUND: 'the configured model does not exist',
      CONTENT_BLOCKED: 'the model provider blocked the content',
      FORMAT_ERROR: 'the model provider rejected the request',
      UNKNOWN: 'the model provider could not be reached',
    };
    return `Sorry, I could not answer: ${reasons[error.kind] ?? 'the model call failed'}. Please try again in a moment.`;
  }
  if (error instanceof AgentError && error.category === 'CANCELLATION') return 'Stopped.';
  return 'Sorry, something went wrong while answering. Please try again.';
}
