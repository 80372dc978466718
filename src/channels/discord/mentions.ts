/**
 * Reads what a Discord message says to the bot: whether its user mentions name the bot (Discord
 * resolves `<@id>` and `<@!id>` into the message's `mentions`; `@everyone` and role mentions do
 * not count), the text without the bot's mention, and a leading `/command args`.
 */

/** What a message's content says to the bot. */
export interface ContentAnalysis {
  /** The content without the bot's mentions. */
  text: string;
  mentioned: boolean;
  command?: { name: string; args: string };
}

const commandPattern = /^\/([A-Za-z0-9_-]{1,32})(?=\s|$)/;

/** Removes the bot's `<@id>` / `<@!id>` tokens with the spacing and punctuation that went with them. */
function removeBotMentions(content: string, botId: string): string {
  const token = new RegExp(`<@!?${botId}>`, 'g');
  return content
    .replace(new RegExp(`^\\s*<@!?${botId}>[,:]?\\s*`), '')
    .replace(new RegExp(`[ \\t]*<@!?${botId}>(?=[,.:;!?]|$)`, 'gm'), '')
    .replace(token, ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A leading `/name args` of a text, the name lowercased. */
export function commandOf(text: string): ContentAnalysis['command'] {
  const match = commandPattern.exec(text);
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: text.slice(match[0].length).trim() };
}

/** Analyses `content` for the bot `botId`, given the ids of the users the message mentions. */
export function analyzeContent(content: string, mentionedUserIds: readonly string[], botId: string): ContentAnalysis {
  const mentioned = mentionedUserIds.includes(botId);
  const text = mentioned || content.includes(`<@${botId}>`) || content.includes(`<@!${botId}>`) ? removeBotMentions(content, botId) : content.trim();
  const command = commandOf(text);
  return { text, mentioned, ...(command ? { command } : {}) };
}
