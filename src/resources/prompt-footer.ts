/**
 * The footer that ends every system prompt: the date (never a time, so the prompt stays
 * byte-stable for a day), the directories, the active profile's files, and the session id.
 */
import { join } from 'node:path';

/** What the footer names. */
export interface FooterInfo {
  /** `YYYY-MM-DD`. */
  date: string;
  cwd: string;
  /** OPERATOR_HOME. */
  home: string;
  /** The active profile and its folder in OPERATOR_HOME. */
  profile?: { name: string; directory: string };
  sessionId?: string;
}

/** The footer text. */
export function buildFooter(info: FooterInfo): string {
  const lines = [`Current date: ${info.date}`, `Current working directory: ${info.cwd}`, `Global directory: ${info.home}`];
  if (info.profile) {
    const directory = info.profile.directory;
    lines.push(
      `Profile: ${info.profile.name}`,
      `Profile directory: ${directory}`,
      `Profile SOUL.md: ${join(directory, 'SOUL.md')} (persona and identity)`,
      `Profile MEMORY.md: ${join(directory, 'MEMORY.md')} (long-term memory)`,
      `Profile USER.md: ${join(directory, 'USER.md')} (who you are talking to)`,
      `Profile skills directory: ${join(directory, 'skills')}`,
      `Profile knowledge directory: ${join(directory, 'knowledge')}`,
      `Profile temp directory: ${join(directory, 'temp')} (scratchpad and shell working directory)`,
    );
  }
  if (info.sessionId) lines.push(`Session ID: ${info.sessionId}`);
  return lines.join('\n');
}
