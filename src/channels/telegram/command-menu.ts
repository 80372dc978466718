/**
 * The command menu as Telegram's `setMyCommands` list. Telegram allows commands of 1-32
 * characters of `a-z`, `0-9` and `_`, descriptions of 1-256 characters and at most 100
 * commands. A `-` in a name (skill names have them) is written `_`: the gateway reads `_` as `-`
 * when it looks a command up, so `/deploy_app` starts the skill `deploy-app`.
 */
import type { BotCommand } from 'grammy/types';
import { menuDescription } from '../menu-text.ts';
import type { CommandInfo } from '../types.ts';

/** Most commands Telegram takes in one menu. */
export const telegramMenuLimit = 100;
/** Longest command description Telegram takes. */
const maxDescription = 256;

/** The Bot API name of a command (`-` as `_`), or undefined when Telegram cannot take it. */
export function telegramCommandName(name: string): string | undefined {
  const normalized = name.replace(/^\//, '').toLowerCase().replace(/-/g, '_');
  return /^[a-z0-9_]{1,32}$/.test(normalized) ? normalized : undefined;
}

/**
 * The `setMyCommands` list for `commands`, in order: names Telegram would refuse, a name taken
 * before, and commands past the 100th are reported to `skip` and left out.
 */
export function telegramCommandMenu(commands: readonly CommandInfo[], skip: (command: CommandInfo, why: string) => void): BotCommand[] {
  const menu: BotCommand[] = [];
  const seen = new Set<string>();
  for (const command of commands) {
    const name = telegramCommandName(command.name);
    if (!name) skip(command, 'Telegram allows 1-32 of a-z, 0-9 and _');
    else if (seen.has(name)) skip(command, `/${name} is in the menu already`);
    else if (menu.length >= telegramMenuLimit) skip(command, `Telegram takes at most ${telegramMenuLimit} commands`);
    else {
      seen.add(name);
      menu.push({ command: name, description: menuDescription(command.description, maxDescription, name) });
    }
  }
  return menu;
}
