/**
 * The HTTP agent discord.js's REST client sends with: one made by the undici that
 * `@discordjs/rest` itself depends on. Without it, the client sends through undici's process-wide
 * dispatcher, which is whatever undici loaded first made: with Slack's Socket Mode in the same
 * process (`@slack/socket-mode` brings a newer undici) that can be another major version, which
 * does not take the older one's multipart bodies, so every message with files failed ("action is
 * not a function") depending on which platform's code happened to load first.
 */
import { createRequire } from 'node:module';
import type { RESTOptions } from 'discord.js';

/** An undici dispatcher of the version `@discordjs/rest` uses. */
type Dispatcher = NonNullable<RESTOptions['agent']>;

let agent: Dispatcher | undefined;

/** The agent for discord.js's REST client (one per process, as the shared dispatcher was). */
export function discordAgent(): Dispatcher {
  if (!agent) {
    // Resolved from @discordjs/rest's own place, so it is the undici it was built and tested with.
    const fromRest = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'));
    const { Agent } = fromRest('undici') as { Agent: new () => Dispatcher };
    agent = new Agent();
  }
  return agent;
}
