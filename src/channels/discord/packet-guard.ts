/**
 * The boundary around discord.js's handling of gateway dispatches. `@discordjs/ws` hands each
 * dispatch to the client's `WebSocketManager`, which emits it raw (the adapter reads messages and
 * interactions there) and then passes it to `handlePacket`, where discord.js builds its own
 * objects (a `ChatInputCommandInteraction`, a `Message`) and updates its caches. A payload of a
 * shape discord.js does not expect makes that throw: a slash command without `entitlements` (as
 * in Discord's own docs example) throws `Cannot read properties of undefined (reading 'reduce')`
 * in `BaseInteraction`'s constructor. Nothing in discord.js catches it, and the rejection ends the
 * process. The adapter needs none of what `handlePacket` builds from a message or an interaction,
 * so the dispatch is dropped there, reported, and the next one handled as usual.
 *
 * `handlePacket` is discord.js's own (undocumented) method; it is wrapped on the client's manager
 * instance, which is also what discord.js calls for the packets it queued before READY.
 */
import type { Client } from 'discord.js';
import type { OutsideErrors } from '../outside-errors.ts';

/** The part of discord.js's `WebSocketManager` that is wrapped. */
interface PacketHandling {
  handlePacket(packet?: { t?: unknown }, shard?: unknown): boolean;
}

/**
 * Wraps `client`'s dispatch handling so a throw in it is reported to `outside` with the
 * dispatch's name, not left to end the process.
 *
 * @example
 * const client = new Client(options);
 * guardPackets(client, outside);
 */
export function guardPackets(client: Client, outside: OutsideErrors): void {
  const manager = client.ws as unknown as PacketHandling;
  const handlePacket = manager.handlePacket;
  if (typeof handlePacket !== 'function') throw new Error('discord: this discord.js has no WebSocketManager.handlePacket to guard');
  manager.handlePacket = function guardedHandlePacket(this: PacketHandling, packet, shard) {
    try {
      return handlePacket.call(this, packet, shard);
    } catch (error) {
      outside.report(typeof packet?.t === 'string' ? packet.t : 'dispatch', error);
      // Handled as far as it goes: discord.js goes on with its bookkeeping of this dispatch.
      return true;
    }
  };
}
