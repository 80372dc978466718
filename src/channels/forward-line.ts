/**
 * How a forwarded or shared message is shown to the agent, the same on every platform: a short
 * line naming where it came from, then its content, so the model can tell the person's own words
 * from what they passed on.
 */

/**
 * The line before forwarded content: `[forwarded from #general / Ada]`, the origin's parts that are
 * known (a chat or channel, a person) joined by ` / `; `[forwarded]` when the platform names none.
 */
export function forwardLine(origin: readonly (string | undefined)[]): string {
  const parts = origin.map((part) => part?.replace(/\s+/g, ' ').trim()).filter((part): part is string => part !== undefined && part !== '');
  return parts.length === 0 ? '[forwarded]' : `[forwarded from ${parts.join(' / ')}]`;
}

/**
 * The text handed to the agent: the person's own words (if any), then each forwarded part, a blank
 * line between them.
 */
export function withForwarded(ownText: string, forwarded: readonly string[]): string {
  return [ownText, ...forwarded].filter((part) => part !== '').join('\n\n');
}
