/**
 * Which typed lines are commands. A line is a command when a slash starts it and a single word
 * of letters, digits, `-` or `_` follows, alone or before a space: `/status`, `/think high`,
 * `/deploy-app canary`. Anything else goes to the model as text, so a path like
 * `/usr/bin is where...` or a lone `/` is a message. A line that would be a command but is meant
 * as text starts with `//`: `//tmp is full` sends `/tmp is full`.
 *
 * A command the chat does not know is refused, never sent to the model: a typo must not spend a
 * turn (and tokens) on the model guessing what `/stauts` meant.
 */
import { closestCommand } from './closest-command.ts';

/** A typed command: `/name args`. */
export interface SlashCommand {
  /** The word after the slash, in lower case (commands are matched without regard to case). */
  name: string;
  /** The rest of the line, trimmed. */
  args: string;
}

const commandLine = /^\/([A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/;

/** The command `line` types, or undefined when it is a message. */
export function parseSlashCommand(line: string): SlashCommand | undefined {
  const match = commandLine.exec(line.trim());
  return match ? { name: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() } : undefined;
}

/** What `line` sends to the model, or undefined when it is a command: `//x` sends `/x`. */
export function messageText(line: string): string | undefined {
  const text = line.trim();
  if (parseSlashCommand(text)) return undefined;
  return text.startsWith('//') && parseSlashCommand(text.slice(1)) ? text.slice(1) : text;
}

/** The answer to `/name` when no command of that name exists; `known` are the names that do. */
export function unknownCommandText(name: string, known: readonly string[]): string {
  const suggestion = closestCommand(name, known);
  const guess = suggestion ? ` (did you mean /${suggestion}?)` : '';
  return `  unknown command /${name}${guess}: /help lists the commands; to send the line to the model as text, start it with //`;
}
