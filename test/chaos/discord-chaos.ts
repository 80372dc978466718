/**
 * The chaos run's Discord: the fake Discord gateway websocket and REST API. Discord has no
 * acknowledgement and no redelivery to a new session: a MESSAGE_CREATE goes out once, to the
 * connections open at that moment, and a process that starts after a kill identifies anew (its
 * killed session's missed events are not replayed; discord.js keeps no session across processes).
 * So a message sent while no gateway was connected is counted as not accepted, and one that went
 * out on the connection of a process killed moments later (it may never have read it) as in
 * flight, not as lost; only one that went out on a live connection in good time can be lost.
 */
import { startDiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { APIUser } from 'discord.js';
import type { ChaosPlatform } from './chaos-driver.ts';

/** Discord's epoch, for the time in a snowflake. */
const discordEpoch = 1_420_070_400_000n;

/** The Discord platform, with its fakes started (the gateway is not). */
export async function discordPlatform(): Promise<ChaosPlatform> {
  const fakes = await startDiscordGatewayFakes('operator-chaos-discord-');
  const { discord } = fakes;
  const dms = new Map<number, { channelId: string; user: APIUser }>();
  const dmOf = (chat: number) => {
    let dm = dms.get(chat);
    if (!dm) dms.set(chat, (dm = discord.addDmChannel(`P${chat}`)));
    return dm;
  };
  const liveAt = new Map<string, number>();
  /** Sessions of killed processes: the fake does not see their connection close at once. */
  const dead = new Set<string>();
  return {
    model: fakes.model,
    home: fakes.home,
    start: () => fakes.startGateway([], { OPERATOR_DM_POLICY: 'open' }),
    killing() {
      for (const id of discord.gateway.sessions.keys()) dead.add(id);
    },
    send(chat, text, token) {
      const { channelId, user } = dmOf(chat);
      // The dispatch is written to the connections open now (synchronously), so this tells whether it went out live.
      if (discord.gateway.connected().some((session) => !dead.has(session.id))) liveAt.set(token, Date.now());
      discord.messageCreate({ channelId, content: text, author: user });
    },
    delivering: () => false,
    botMessages: (chat) =>
      discord.botMessages(dmOf(chat).channelId).map(({ message, edits }) => ({ text: message.content, edits, createdAt: Number((BigInt(message.id) >> 22n) + discordEpoch), noteKey: `${dmOf(chat).channelId}:${message.id}` })),
    activity: () => discord.calls.length,
    delivery: (token) => (liveAt.has(token) ? { acknowledged: true, liveAt: liveAt.get(token)! } : { acknowledged: false }),
    redeliveries: () => 0,
    calls: () => discord.calls.map((call) => `${call.method} ${call.path} ${JSON.stringify(call.body ?? '').slice(0, 40)}`),
    close: () => fakes.close(),
  };
}
