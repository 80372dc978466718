/**
 * A persona for the terminal chat: the profile's SOUL.md (from OPERATOR_HOME, else the built-in
 * profiles folder) replaces the default identity; the footer names the profile's directory.
 * The full prompt assembly (memory, user notes, skills, knowledge, platform hints) replaces this
 * with the profiles work.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';
import { ConfigurationError } from '../core/errors.ts';
import type { SystemPromptBuilder } from '../agent/system-prompt.ts';
import { defaultSystemPrompt, promptFooter } from '../agent/system-prompt.ts';

const builtinProfiles = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'profiles');

/** Profile names are folder names: letters, digits, `-` and `_`. */
const profileName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The prompt builder for `profile` (the `default` profile when none is given). */
export function createProfilePrompt(requested: string | undefined, env: NodeJS.ProcessEnv = process.env): SystemPromptBuilder {
  const profile = requested ?? 'default';
  if (!profileName.test(profile)) throw new ConfigurationError(`Invalid profile name "${profile}": use letters, digits, - and _`);
  const home = env.OPERATOR_HOME ?? join(homedir(), '.operator');
  const directories = [join(home, 'profiles', profile), join(builtinProfiles, profile)];
  const soulPath = directories.map((directory) => join(directory, 'SOUL.md')).find((path) => existsSync(path));
  if (!soulPath && !directories.some((directory) => existsSync(directory))) {
    throw new ConfigurationError(`Profile "${profile}" not found (looked in ${directories.join(' and ')})`);
  }
  return (context) => {
    // Read at build time: the Agent caches the result per channel until reload.
    const soul = soulPath ? readFileSync(soulPath, 'utf8').trim() : '';
    if (!soul) return defaultSystemPrompt(context);
    return [soul, promptFooter(context, home), `Profile: ${profile}\nProfile directory: ${directories[0]}`].join('\n\n');
  };
}
