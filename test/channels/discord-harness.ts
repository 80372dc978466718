/**
 * The Discord adapter wired to the fake Discord (REST and gateway on one port), with the
 * platform-side powers the contract suite and the Discord tests use.
 */
import { createDiscordChannel, type DiscordChannelOptions } from '../../src/channels/discord/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../../src/channels/types.ts';
import { displayedContent } from '../fakes/fake-discord-markdown.ts';
import { startFakeDiscordServer, type FakeDiscord, type FakeDiscordOptions, type FakeStoredMessage } from '../fakes/fake-discord-server.ts';
import type { AdapterHarness, SentFileRecord, SentRecord } from './adapter-contract.ts';

/** A Discord adapter on a fake Discord. */
export interface DiscordHarness extends AdapterHarness {
  discord: FakeDiscord;
  /** Log lines the adapter wrote. */
  logs: string[];
  /** Creates another adapter on the same fake (not started). */
  createAdapter(options?: Partial<DiscordChannelOptions>): ChannelAdapter;
}

/** Options of {@link startDiscordHarness}. */
export interface DiscordHarnessOptions {
  /** The conversation of the contract suite (default: the guild thread). */
  where?: 'thread' | 'channel' | 'dm';
  /** More adapter options (retry policy, clock, ...). */
  adapter?: Partial<DiscordChannelOptions>;
  fake?: FakeDiscordOptions;
}

/** The channel a conversation's messages go to. */
export function channelOf(address: ConversationAddress): string {
  return address.threadId ?? address.conversationId;
}

/** Reads a fake's stored bot message as the contract suite sees it. */
export function sentRecordOf(stored: FakeStoredMessage): SentRecord {
  const { text, codeBlocks } = displayedContent(stored.message.content);
  const rows = (stored.message.components ?? []).flatMap((row) => ('components' in row ? [row.components as { label?: string; custom_id?: string }[]] : []));
  const buttons = rows.map((row) => row.flatMap((button) => (button.custom_id !== undefined ? [{ label: button.label ?? '', data: button.custom_id }] : [])));
  return { id: stored.message.id, text, length: stored.message.content.length, codeBlocks, ...(buttons.length > 0 ? { buttons } : {}) };
}

/** The files of the bot's messages in a channel, oldest first, downloaded from the fake as a person would. */
export async function sentFilesOf(discord: FakeDiscord, channelId: string): Promise<SentFileRecord[]> {
  const attachments = discord.botMessages(channelId).flatMap((stored) => stored.message.attachments);
  return Promise.all(
    attachments.map(async (attachment) => {
      const response = await fetch(attachment.url);
      if (!response.ok) throw new Error(`fake Discord: attachment ${attachment.filename} answered ${response.status}`);
      return { name: attachment.filename, bytes: new Uint8Array(await response.arrayBuffer()) };
    }),
  );
}

/** Starts the fake and creates (without starting) the adapter. */
export async function startDiscordHarness(options: DiscordHarnessOptions = {}): Promise<DiscordHarness> {
  const discord = await startFakeDiscordServer(options.fake);
  const logs: string[] = [];
  const createAdapter = (more: Partial<DiscordChannelOptions> = {}) =>
    createDiscordChannel({ token: discord.token, apiUrl: discord.apiUrl, log: (line) => logs.push(line), ...options.adapter, ...more });
  const { world } = discord;
  const where = options.where ?? 'thread';
  const address: ConversationAddress =
    where === 'thread'
      ? { platform: 'discord', conversationId: world.channelId, threadId: world.threadId }
      : { platform: 'discord', conversationId: where === 'dm' ? world.dmChannelId : world.channelId };
  return {
    discord,
    logs,
    createAdapter,
    adapter: createAdapter(),
    address,
    async deliverText(target, text) {
      const dispatch = discord.messageCreate({ channelId: channelOf(target), content: text });
      return { redeliver: async () => dispatch.redeliver() };
    },
    async sent(target) {
      return discord.botMessages(channelOf(target)).filter((stored) => !stored.ephemeral).map(sentRecordOf);
    },
    sentFiles: (target) => sentFilesOf(discord, channelOf(target)),
    async pressButton(target, messageId, data) {
      discord.buttonPress({ channelId: channelOf(target), messageId, customId: data });
    },
    async actionAnswered(action) {
      return discord.callbacks.some((callback) => callback.interactionId === action.id && [4, 6, 7].includes(callback.type));
    },
    async close() {
      await discord.close();
    },
  };
}
