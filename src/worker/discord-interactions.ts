/**
 * Discord's interactions on Workers (`POST /webhooks/discord`, the application's Interactions
 * Endpoint URL): the signature checked before the body is parsed (401 otherwise, as Discord
 * requires), then its age: an interaction Discord made more than 5 minutes ago (or as far ahead of
 * this clock) is refused (401), so a signed request captured on its way cannot be played again
 * later (see {@link interactionTime}). Then by type:
 *
 * - PING (1) is answered PONG (`{ type: 1 }`).
 * - A slash command (2) is mapped by the Discord channel's own `toCommandMessage` (the `args`
 *   option is the text: `/name args`), put on record in its conversation's Durable Object with
 *   the interaction's application id and token (the answer edits the deferred reply), and then
 *   acknowledged as a deferred channel message (`{ type: 5 }`, Discord shows "thinking…"). Discord
 *   never delivers an interaction again, so when the object cannot take it the person is told at
 *   once, in a notice only they see.
 * - A component (3) is acknowledged as a deferred update (`{ type: 6 }`) and nothing else: the
 *   Workers build sends no buttons yet, so no press can be one of its own.
 *
 * There is no gateway websocket on Workers: plain messages and mentions never reach this route.
 */
import type { APIApplicationCommandInteraction, APIChatInputApplicationCommandInteraction } from 'discord.js';
import { createChannelKinds } from '../channels/discord/channel-kinds.ts';
import { conversationOf } from '../channels/discord/conversation.ts';
import { interactionUser, toCommandMessage } from '../channels/discord/interactions.ts';
import { readLimitedBytes, tooLarge } from '../core/read-limited-body.ts';
import { discordSignatureCheck } from './discord-signature.ts';
import { toWireMessage } from './wire-message.ts';
import type { WorkerEnv } from './worker-env.ts';

/**
 * The largest interaction taken, in bytes. Discord's payloads carry the command, the member and
 * the resolved users, channels and messages it names: kilobytes, far below this.
 */
export const discordInteractionBodyLimit = 1024 * 1024;

/** The oldest interaction taken, in milliseconds (and the furthest ahead of this clock). */
export const maxInteractionAgeMs = 5 * 60 * 1000;

/** Discord's epoch, the first millisecond of 2015, in milliseconds since the Unix epoch. */
const discordEpochMs = 1_420_070_400_000n;

/**
 * When Discord made the interaction with this id, in milliseconds since the epoch, or undefined
 * when `id` is not a snowflake. The id is the age's source, not the `X-Signature-Timestamp`
 * header: both are signed, but the id's top 42 bits are documented as the milliseconds since
 * Discord's epoch at which the interaction was made (its token's 15 minutes count from there),
 * while the header only dates the signature of this one request, in a format Discord leaves
 * undocumented (seconds, in practice).
 */
export function interactionTime(id: unknown): number | undefined {
  if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) return undefined;
  const snowflake = BigInt(id);
  if (snowflake >= 1n << 64n) return undefined;
  return Number((snowflake >> 22n) + discordEpochMs);
}

/** What the person sees when the conversation could not take the command (Discord will not send it again). */
const notTakenNotice = 'Sorry, I could not take that command just now. Please try it again in a moment.';

/**
 * Without a gateway client, a channel's kind comes from the interaction alone: Discord puts the
 * channel (its type, a thread's parent) in every interaction.
 */
const channelKinds = createChannelKinds(() => undefined, (line) => console.error(line));

/** An interaction answer that only the person who used the command sees. */
function notice(content: string): Response {
  return Response.json({ type: 4, data: { content, flags: 64, allowed_mentions: { parse: [] } } });
}

/** Answers one POST from Discord. */
export async function discordInteractions(request: Request, env: WorkerEnv): Promise<Response> {
  if (!env.DISCORD_PUBLIC_KEY) return new Response('the Discord interactions endpoint is not configured (DISCORD_PUBLIC_KEY)', { status: 503 });
  const check = discordSignatureCheck(env.DISCORD_PUBLIC_KEY);
  if (!check) return new Response('the Discord interactions endpoint is misconfigured: DISCORD_PUBLIC_KEY is not 64 hex digits', { status: 503 });
  const signature = request.headers.get('x-signature-ed25519');
  const timestamp = request.headers.get('x-signature-timestamp');
  if (!signature || !timestamp) return new Response('invalid request signature', { status: 401 });
  const bytes = await readLimitedBytes(request, discordInteractionBodyLimit);
  if (bytes === undefined) return tooLarge(discordInteractionBodyLimit);
  if (!(await check(signature, timestamp, bytes))) return new Response('invalid request signature', { status: 401 });

  let interaction: { type?: unknown; id?: unknown };
  try {
    interaction = JSON.parse(new TextDecoder().decode(bytes)) as { type?: unknown; id?: unknown };
  } catch {
    return new Response('bad request: not JSON', { status: 400 });
  }
  if (typeof interaction !== 'object' || interaction === null) return new Response('bad request: not an interaction', { status: 400 });
  const made = interactionTime(interaction.id);
  if (made === undefined) return new Response('bad request: an interaction without a valid id', { status: 400 });
  const ageMs = Date.now() - made;
  if (Math.abs(ageMs) > maxInteractionAgeMs) {
    // The log says which way and by how much: a replay, or this clock (or Discord's) being wrong.
    const seconds = Math.round(Math.abs(ageMs) / 1000);
    console.error(`discord: interaction ${String(interaction.id)} refused: made ${seconds} s ${ageMs > 0 ? 'ago' : 'ahead of this clock'}, more than ${maxInteractionAgeMs / 60_000} minutes (a replayed request?)`);
    return new Response('interaction refused: it is more than 5 minutes old', { status: 401 });
  }
  switch (interaction.type) {
    case 1:
      return Response.json({ type: 1 });
    case 2:
      return command(interaction as APIApplicationCommandInteraction, env);
    case 3:
      // Acknowledged only: no buttons are sent from Workers yet, so there is nothing to press.
      return Response.json({ type: 6 });
    default:
      return new Response('bad request: an interaction type this endpoint does not take', { status: 400 });
  }
}

/** A slash command: on record in its conversation, then deferred. */
async function command(interaction: APIApplicationCommandInteraction, env: WorkerEnv): Promise<Response> {
  // Only chat-input commands (1) are the bot's; user and message context menus are not registered.
  if (interaction.data?.type !== 1) return notice('Only slash commands are answered here.');
  const chatInput = interaction as APIChatInputApplicationCommandInteraction;
  const user = interactionUser(chatInput);
  const channelId = chatInput.channel?.id ?? chatInput.channel_id;
  if (!user || !channelId || typeof chatInput.token !== 'string' || typeof chatInput.application_id !== 'string') return new Response('bad request: a command without its user, channel or token', { status: 400 });
  const kind = await channelKinds(channelId, { guildId: chatInput.guild_id, userId: user.id, ...(chatInput.channel ? { channel: chatInput.channel } : {}) });
  const message = toCommandMessage(chatInput, conversationOf(channelId, kind), Date.now());
  if (!message) return new Response('bad request: a command without its user', { status: 400 });
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(message.sessionKey));
  try {
    await stub.accept(toWireMessage(message, { applicationId: chatInput.application_id, token: chatInput.token }));
  } catch (error) {
    console.error(`discord: interaction ${chatInput.id} not taken (${error instanceof Error ? error.message : String(error)}); the person is asked to try again`);
    return notice(notTakenNotice);
  }
  return Response.json({ type: 5 });
}
