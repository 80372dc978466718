/**
 * Reads what a Slack message text says to the bot: whether it mentions the bot (`<@BOTUSERID>`),
 * the text without those mentions and with Slack's markup turned into plain text (`<@U1|ada>`
 * -> `@ada`, `<#C1|general>` -> `#general`, `<https://x|label>` -> `label (https://x)`,
 * `&lt;` -> `<`), and a leading `/command args`.
 */

/** What a text says to the bot. */
export interface TextAnalysis {
  /** Plain text, without the bot's mentions. */
  text: string;
  mentioned: boolean;
  command?: { name: string; args: string };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One `<…>` of Slack's markup as plain text. */
function plainReference(inner: string): string {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : inner.slice(bar + 1);
  if (target.startsWith('@')) return `@${label ?? target.slice(1)}`;
  if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
  if (target.startsWith('!subteam^')) return label ?? `@${target.slice('!subteam^'.length)}`;
  if (target.startsWith('!date^')) return label ?? '';
  if (target.startsWith('!')) return `@${target.slice(1)}`;
  const url = target.startsWith('mailto:') ? target.slice('mailto:'.length) : target;
  return label === undefined || label === url || label === target ? url : `${label} (${url})`;
}

/** Slack's escaped text (`&amp;`, `&lt;`, `&gt;`) as plain text. */
export function decodeSlackEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Slack message markup as plain text. */
export function plainSlackText(text: string): string {
  return decodeSlackEntities(text.replace(/<([^<>\n]+)>/g, (_whole, inner: string) => plainReference(inner)));
}

/** Analyses a message's `text` for the bot whose user id is `botUserId`. */
export function analyzeText(text: string, botUserId: string): TextAnalysis {
  const botMention = new RegExp(`<@${escapeRegExp(botUserId)}(?:\\|[^>]*)?>`, 'g');
  const mentioned = botUserId !== '' && botMention.test(text);
  const withoutMentions = mentioned
    ? text
        .replace(new RegExp(`^\\s*${botMention.source}[,:]?\\s*`), '')
        .replace(new RegExp(`[ \\t]*${botMention.source}`, 'g'), '')
    : text;
  const plain = plainSlackText(withoutMentions).trim();
  const match = /^\/([A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/.exec(plain);
  return { text: plain, mentioned, ...(match ? { command: { name: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() } } : {}) };
}
