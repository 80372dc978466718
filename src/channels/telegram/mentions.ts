/**
 * Reads what a Telegram text says to the bot: whether it mentions the bot (a `mention` entity, a
 * `text_mention` of the bot's user, or `@username` in the text), the text without those
 * mentions, and a `/command` (`/cmd@botname args`; a command addressed to another bot is not one).
 */
import type { MessageEntity } from 'grammy/types';

/** The bot as Telegram's getMe describes it. */
export interface BotIdentity {
  id: number;
  username: string;
}

/** What a text says to the bot. */
export interface TextAnalysis {
  /** The text without the bot's mentions. */
  text: string;
  mentioned: boolean;
  command?: { name: string; args: string };
}

interface Range {
  start: number;
  end: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The ranges naming the bot: mention entities, else `@username` found in the text. */
function mentionRanges(text: string, entities: MessageEntity[], bot: BotIdentity): Range[] {
  const handle = `@${bot.username}`.toLowerCase();
  const ranges: Range[] = [];
  for (const entity of entities) {
    const slice = text.slice(entity.offset, entity.offset + entity.length);
    const isBot = (entity.type === 'mention' && slice.toLowerCase() === handle) || (entity.type === 'text_mention' && entity.user.id === bot.id);
    if (isBot) ranges.push({ start: entity.offset, end: entity.offset + entity.length });
  }
  if (ranges.length > 0 || bot.username === '') return ranges;
  for (const match of text.matchAll(handlePattern(bot.username))) {
    ranges.push({ start: match.index, end: match.index + match[0].length });
  }
  return ranges;
}

/** The pattern of the bot's @handle in plain text, made once per username (a bot has one). */
let handle: { username: string; pattern: RegExp } | undefined;
function handlePattern(username: string): RegExp {
  // `matchAll` works on a copy, so the one pattern's `lastIndex` is never moved.
  if (handle?.username !== username) handle = { username, pattern: new RegExp(`(?<![\\w@])@${escapeRegExp(username)}(?!\\w)`, 'gi') };
  return handle.pattern;
}

/** Removes ranges from the text with the spacing and punctuation that went with them. */
function removeRanges(text: string, ranges: Range[]): string {
  let result = text;
  for (const range of [...ranges].sort((a, b) => b.start - a.start)) {
    const before = result.slice(0, range.start);
    let after = result.slice(range.end);
    if (before.trim() === '') after = after.replace(/^[,:]?[ \t]*/, '');
    result = before.replace(/[ \t]+$/, after.startsWith(' ') || /^[,.:;!?]/.test(after) || after === '' ? '' : ' ') + after;
  }
  return result.trim();
}

/** Analyses a message's text (or caption) with its entities for the bot `bot`. */
export function analyzeText(text: string, entities: MessageEntity[], bot: BotIdentity): TextAnalysis {
  const ranges = mentionRanges(text, entities, bot);
  let mentioned = ranges.length > 0;
  const commandEntity = entities.find((entity) => entity.type === 'bot_command' && entity.offset === 0);
  const commandText = commandEntity ? text.slice(0, commandEntity.length) : /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?(?=\s|$)/.exec(entities.length === 0 ? text : '')?.[0];
  let command: TextAnalysis['command'];
  if (commandText) {
    const [name = '', target] = commandText.slice(1).split('@');
    const forUs = target === undefined || target.toLowerCase() === bot.username.toLowerCase();
    if (forUs) {
      if (target !== undefined) {
        mentioned = true;
        ranges.push({ start: 1 + name.length, end: commandText.length });
      }
      command = { name: name.toLowerCase(), args: '' };
    }
  }
  const stripped = removeRanges(text, ranges);
  if (command) command.args = stripped.replace(/^\/[A-Za-z0-9_]+/, '').trim();
  return { text: stripped, mentioned, ...(command ? { command } : {}) };
}
