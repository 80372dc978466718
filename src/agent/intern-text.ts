/**
 * Shares one copy of texts that many agents build alike. Every conversation of a profile on a
 * platform gets the same system prompt, built separately per conversation; kept per conversation
 * that is a few kilobytes each, which dominates the memory of an idle conversation.
 */

/** Most distinct texts remembered; the oldest is forgotten first (its holders keep their copy). */
const limit = 64;

const texts = new Map<string, string>();

/**
 * The first-seen copy of `text` when an equal text was interned recently, else `text` itself
 * (remembered for the next caller). Map lookups hash the text once, which costs far less than a
 * prompt build.
 */
export function internText(text: string): string {
  const known = texts.get(text);
  if (known !== undefined) return known;
  texts.set(text, text);
  if (texts.size > limit) texts.delete(texts.keys().next().value!);
  return text;
}
