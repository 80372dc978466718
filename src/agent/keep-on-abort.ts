/** What of an aborted answer the session keeps. */
import type { AssistantMessage } from '../llm/types.ts';

/**
 * What of an aborted answer is worth keeping: the text shown so far. Tool calls (never run) and
 * unsigned thinking (which providers refuse back) are dropped. Undefined: nothing is kept.
 */
export function keepOnAbort(message: AssistantMessage): AssistantMessage | undefined {
  const content = message.content.filter((part) => part.type === 'text' && part.text.length > 0);
  if (content.length === 0) return undefined;
  return { ...message, content, stopReason: 'aborted' };
}
