/**
 * A reply that is one line of plain words, rendered without the Markdown formatter: nothing in it
 * could be Markdown, so its HTML is the text escaped, as the formatter would render it. Short
 * answers ("Sure, done.") are common, and the formatter's first use compiles `marked`'s rules
 * (40-60 ms on this project's machine), which a start-up's first reply would otherwise wait for.
 */
import { escapeHtml } from './escape-html.ts';
import { telegramMaxLength } from './max-length.ts';

/** Letters, digits, spaces and punctuation that no Markdown construct starts or ends with. */
const plainCharacters = /^[\p{L}\p{N} ,.;:?!'’"%()-]*$/u;
/** What a line may not start with, though each character is plain: a list item (`1. `, `- `), a heading rule (`---`). */
const markdownStart = /^(?:\d+[.)]|-)/;

/** The one Telegram chunk of `text` when it is plain words on one line that fit one message; undefined otherwise (format it). */
export function plainReply(text: string): { html: string; plain: string } | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.length > telegramMaxLength || !plainCharacters.test(trimmed) || markdownStart.test(trimmed)) return undefined;
  return { html: escapeHtml(trimmed), plain: trimmed };
}
