/** The fill-level line shown above a memory file in the system prompt. */

/** What a header calls a memory file: the profile's two, a conversation's own two, or the notes about a turn's speaker. */
export type MemoryLabel = 'MEMORY' | 'USER' | 'CONVERSATION MEMORY' | 'CONVERSATION USER' | 'SPEAKER NOTES';

/**
 * `MEMORY [67% - 1,474/2,200 chars]`: the percentage rounded, numbers with `,` as thousands
 * separator whatever the locale (the prompt must be byte-stable across machines). The label names
 * the file: `MEMORY`, `USER`, or a conversation's own `CONVERSATION MEMORY`, `CONVERSATION USER`.
 *
 * @example memoryHeader('USER', 0, 1375) // 'USER [0% - 0/1,375 chars]'
 */
export function memoryHeader(label: MemoryLabel, used: number, limit: number): string {
  const percent = limit > 0 ? Math.round((used / limit) * 100) : 0;
  return `${label} [${percent}% - ${groupThousands(used)}/${groupThousands(limit)} chars]`;
}

function groupThousands(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
