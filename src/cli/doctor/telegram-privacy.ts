/**
 * Doctor line: Telegram's privacy mode (what `getMe` says in `can_read_all_group_messages`)
 * against the groups configured to answer without a mention. With privacy mode on, Telegram gives
 * a bot in a group only the messages that mention it, reply to it or are commands, so such a
 * group would never hear from the bot, and nothing is overheard for the recent chat context.
 */
import type { CheckResult } from './check.ts';

const name = 'Telegram privacy mode';

/**
 * The line for privacy mode, or none when `getMe` did not say (a Bot API server that predates the
 * field).
 *
 * @param canReadAll `getMe`'s `can_read_all_group_messages` (true: privacy mode is off).
 * @param noMentionGroups the `telegram:<chat id>` keys of `groups` with `requireMention: false`;
 * undefined when the configuration could not be read.
 * @param username the bot's username, for the BotFather instructions.
 */
export function privacyModeResult(canReadAll: unknown, noMentionGroups: readonly string[] | undefined, username: string): CheckResult | undefined {
  if (typeof canReadAll !== 'boolean') return undefined;
  if (canReadAll) return { level: 'OK', name, detail: 'off: every group message reaches the bot (groups without a mention are answered, the rest is recent chat context)' };
  const onlyAddressed = 'in groups only mentions, replies to the bot and commands reach it';
  if (noMentionGroups === undefined || noMentionGroups.length === 0) {
    const unknown = noMentionGroups === undefined ? ' (groups not compared: the configuration is invalid)' : '';
    return { level: 'OK', name, detail: `on: ${onlyAddressed}, so it overhears nothing between them${unknown}; to change it: /setprivacy in @BotFather` };
  }
  const shown = noMentionGroups.slice(0, 3).join(', ') + (noMentionGroups.length > 3 ? ` and ${noMentionGroups.length - 3} more` : '');
  return {
    level: 'WARN',
    name,
    detail: `on, but ${shown} ${noMentionGroups.length === 1 ? 'is' : 'are'} configured to answer without a mention (requireMention: false): ${onlyAddressed}, so there it hears nothing else`,
    // Telegram applies the setting when the bot joins a group; an admin bot gets every message anyway.
    fix: `in @BotFather send /setprivacy, choose @${username} and Disable, then remove the bot from those groups and add it again (or make it an admin there)`,
  };
}
