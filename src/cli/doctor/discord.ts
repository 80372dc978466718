/**
 * Doctor check: the Discord bot token is accepted (`GET /users/@me`) at the configured REST base,
 * and then that the application may use the Message Content intent (`discord-intent.ts`).
 */
import type { DiscordSettings } from '../../gateway/config/index.ts';
import { messageOf, requestJson, type CheckResult } from './check.ts';
import { checkMessageContent } from './discord-intent.ts';

const name = 'Discord';

/** Checks the bot behind `token`, unless `offline` (then only that it is set). */
export async function checkDiscord(token: string, settings: DiscordSettings, offline: boolean): Promise<CheckResult | CheckResult[]> {
  if (offline) return { level: 'OK', name, detail: 'DISCORD_BOT_TOKEN is set; not contacted (--offline)' };
  // discord.js adds the version to its `rest.api` base, which DISCORD_API_URL sets.
  const base = (settings.apiUrl ?? 'https://discord.com/api').replace(/\/+$/, '');
  const where = settings.apiUrl ? ` at ${base}` : '';
  try {
    const answer = await requestJson(`${base}/v10/users/@me`, { headers: { authorization: `Bot ${token}` } }, base);
    const body = (answer.body ?? {}) as { username?: string; message?: string };
    if (answer.status === 200) return [{ level: 'OK', name, detail: `the token is accepted: ${body.username ?? '?'}${where}` }, await checkMessageContent(base, token)];
    if (answer.status === 401) return { level: 'FAIL', name, detail: `the token is refused (401 ${body.message ?? answer.statusText})${where}`, fix: 'check DISCORD_BOT_TOKEN (Bot → Token in the developer portal)' };
    return { level: 'FAIL', name, detail: `GET /users/@me failed (${answer.status} ${body.message ?? answer.statusText})${where}`, fix: settings.apiUrl ? 'check DISCORD_API_URL' : 'try again later' };
  } catch (error) {
    return { level: 'FAIL', name, detail: messageOf(error), fix: settings.apiUrl ? 'check DISCORD_API_URL and the network' : 'check the network (and a proxy, if any)' };
  }
}
