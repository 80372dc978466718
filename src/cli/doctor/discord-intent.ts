/**
 * Doctor line: whether the Discord application may use the privileged Message Content intent.
 * The adapter asks for it at IDENTIFY, and Discord closes the gateway (4014) for an application
 * whose portal toggle is off, so `operator start` would fail; `GET /applications/@me`'s `flags`
 * say whether it is on before anyone tries.
 */
import { messageOf, requestJson, type CheckResult } from './check.ts';

const name = 'Discord message content';

/** Reads the application's flags at `base` (a REST base without the version) with the bot `token`. */
export async function checkMessageContent(base: string, token: string): Promise<CheckResult> {
  try {
    const answer = await requestJson(`${base}/v10/applications/@me`, { headers: { authorization: `Bot ${token}` } }, base);
    const body = (answer.body ?? {}) as { flags?: unknown; message?: string };
    if (answer.status !== 200 || typeof body.flags !== 'number') {
      return { level: 'WARN', name, detail: `GET /applications/@me failed (${answer.status} ${body.message ?? answer.statusText}): the intent was not checked`, fix: 'Bot → Privileged Gateway Intents → Message Content must be on' };
    }
    // Loaded here, not at doctor's start: only a configured Discord needs the SDK's flag values.
    const { ApplicationFlags } = await import('discord.js');
    // Verified apps (100 servers or more) carry the approved flag, the others the portal's toggle.
    const intent = ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;
    if ((body.flags & intent) !== 0) return { level: 'OK', name, detail: 'the Message Content intent is enabled' };
    return {
      level: 'FAIL',
      name,
      detail: 'the Message Content intent is not enabled: Discord refuses the gateway connection that asks for it (4014), so the bot cannot start',
      fix: 'turn on Bot → Privileged Gateway Intents → Message Content in the developer portal (an app in 100 servers or more needs Discord to approve it)',
    };
  } catch (error) {
    return { level: 'WARN', name, detail: `${messageOf(error)}: the intent was not checked`, fix: 'Bot → Privileged Gateway Intents → Message Content must be on' };
  }
}
