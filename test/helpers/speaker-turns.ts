/**
 * Reading group turns off the fake model's recorded requests: the text of a request's last user
 * message (what the gateway made of the turn, labels and all).
 */

/** The text of the last message of an Anthropic request body (its text blocks joined). */
export function lastUserText(body: { messages?: unknown }): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const last = messages.at(-1);
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
}
