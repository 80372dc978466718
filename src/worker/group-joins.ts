/**
 * The bot added to a group, on Workers (Telegram's `my_chat_member`, Slack's
 * `member_joined_channel`, as the channels map them): the access object decides, as on Node (an
 * admin added it: approved at once; anyone else, under `groupPolicy: approval`: the group's
 * pairing code, sent there once), and the webhook is answered 200 once that is on record (503
 * when the access object could not take it: the platform delivers it again, which changes nothing).
 */
import type { GroupJoin } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import { groupLabel } from '../gateway/access/pairing-group.ts';
import { accessObject } from './access-object.ts';
import { replyChannelFor } from './reply-channels.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Takes `join` and answers its webhook. */
export async function workerGroupJoin(env: WorkerEnv, join: GroupJoin): Promise<Response> {
  const { raw: _raw, ...wire } = join;
  const label = groupLabel({ platform: join.address.platform, ...join.group });
  let outcome;
  try {
    outcome = await accessObject(env).groupJoined(wire);
  } catch (error) {
    console.error(`${label}: the bot's joining not taken (${errorMessage(error)}); the platform will deliver it again`);
    return new Response('not taken now, deliver again', { status: 503 });
  }
  const approved = outcome.approved;
  if (approved) console.log(`${label}: approved: ${approved.movedFrom ? `moved from ${approved.movedFrom}, which was approved` : `${join.address.platform}:${join.by?.id ?? '?'}, an admin, added the bot`}`);
  if (outcome.reply !== undefined) {
    const adapter = replyChannelFor(join.address.platform, env);
    await adapter?.send(join.address, { text: outcome.reply }).catch((error: unknown) => console.error(`${label}: could not send its pairing code: ${errorMessage(error)}`));
  }
  return new Response('ok');
}
