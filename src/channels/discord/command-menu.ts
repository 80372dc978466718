/**
 * The command menu as Discord global application commands: each command a chat-input (slash)
 * command with one optional string option, `args`, for whatever follows the name. Discord wants
 * lowercase names of 1-32 characters (`-`, `_`, letters, digits), descriptions of 1-100 and at
 * most 100 global commands.
 */
import type { RESTPutAPIApplicationCommandsJSONBody } from 'discord.js';
import { menuDescription } from '../menu-text.ts';
import type { CommandInfo } from '../types.ts';

/** Most global commands Discord takes. */
export const discordMenuLimit = 100;

/** The option every command carries. */
const argsOption = { type: 3, name: 'args', description: 'What to pass to the command', required: false } as const;

/** Discord's name of a command, or undefined when it cannot be one. */
export function discordCommandName(name: string): string | undefined {
  const normalized = name.replace(/^\//, '').toLowerCase();
  return /^[-_a-z0-9]{1,32}$/.test(normalized) ? normalized : undefined;
}

/**
 * The bulk-overwrite body for `commands`, in order; names Discord would refuse, names taken before
 * and commands past the 100th are reported to `skip` and left out.
 */
export function commandMenuBody(commands: readonly CommandInfo[], skip: (command: CommandInfo) => void): RESTPutAPIApplicationCommandsJSONBody {
  const seen = new Set<string>();
  return commands.flatMap((command) => {
    const name = discordCommandName(command.name);
    if (!name || seen.has(name) || seen.size >= discordMenuLimit) {
      skip(command);
      return [];
    }
    seen.add(name);
    const description = menuDescription(command.description, 100, name);
    // Usable in guilds (0) and in the bot's DMs (1), for a guild-installed app (0).
    return [{ type: 1, name, description, options: [argsOption], contexts: [0, 1], integration_types: [0] }];
  });
}
