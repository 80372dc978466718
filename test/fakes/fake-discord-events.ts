/**
 * Builders of realistic dispatches for the fake gateway: a person's MESSAGE_CREATE (mentions
 * resolved from `<@id>` in the content as Discord does, a reply with its `referenced_message`
 * that pings the replied-to author, attachments served by the fake) and INTERACTION_CREATE for a
 * slash command or a button press. The Message Content intent is honoured per session.
 */
import type { APIAttachment, APIUser, GatewayMessageCreateDispatchData as APIMessage } from 'discord.js';
import { intentBits, type FakeGateway, type GatewaySession } from './fake-discord-gateway.ts';
import type { FakeDiscordState } from './fake-discord-state.ts';

/** A dispatch the fake can send again (same payload), as after a resume. */
export interface FakeDispatch<T> {
  payload: T;
  redeliver(): void;
}

/** A person's message. */
export interface FakePersonMessage {
  channelId: string;
  content: string;
  /** Default: the world's person. */
  author?: APIUser;
  /** A message (the bot's or a person's) this one replies to. */
  replyTo?: string;
  /** Whether the reply pings its author (Discord's default: yes). */
  pingReplied?: boolean;
  /** Files; `durationSecs` with `waveform` make a voice message's (as Discord's client records one). */
  attachments?: { filename: string; contentType?: string; bytes: Uint8Array; durationSecs?: number; waveform?: string }[];
  /** When it was sent (ms since the Unix epoch; its id and timestamp say so); default now. */
  sentAt?: number;
}

/** A slash command invocation. */
export interface FakeSlashCommand {
  channelId: string;
  name: string;
  /** The value of the string option `args`, if given. */
  args?: string;
  user?: APIUser;
  /** Fields of the payload left out, as in some real ones (Discord's docs example has no `entitlements`). */
  without?: readonly string[];
}

/** A button press under one of the bot's messages. */
export interface FakeButtonPress {
  channelId: string;
  messageId: string;
  customId: string;
  user?: APIUser;
  /** The component pressed (default 2, a button; 3 is a string select menu). */
  componentType?: number;
}

/** The dispatch builders of one fake Discord. */
export interface FakeDiscordEvents {
  messageCreate(options: FakePersonMessage): FakeDispatch<APIMessage>;
  /** A MESSAGE_CREATE exactly as given (a recorded payload), to every session whose intents let it see it. */
  rawMessageCreate(message: APIMessage): FakeDispatch<APIMessage>;
  slashCommand(options: FakeSlashCommand): FakeDispatch<Record<string, unknown>>;
  buttonPress(options: FakeButtonPress): FakeDispatch<Record<string, unknown>>;
}

/** What a session without the Message Content intent sees of a message. */
function contentFor(session: GatewaySession, message: APIMessage, botId: string): APIMessage | undefined {
  const isDm = message.guild_id === undefined;
  if ((session.intents & (isDm ? intentBits.directMessages : intentBits.guildMessages)) === 0) return undefined;
  const privileged = (session.intents & intentBits.messageContent) !== 0 || isDm || message.author.id === botId || message.mentions.some((user) => user.id === botId);
  return privileged ? message : { ...message, content: '', embeds: [], attachments: [], components: [] };
}

/** Dispatch builders over `state`, sent through `gateway`; attachment URLs start at `origin()`. */
export function createEvents(state: FakeDiscordState, gateway: FakeGateway, origin: () => string, defaultUser: () => APIUser): FakeDiscordEvents {
  const knownUsers = (): APIUser[] => [state.bot, defaultUser(), ...[...state.channels.values()].flatMap((channel) => (channel.recipient ? [channel.recipient] : []))];

  function attachmentsOf(channelId: string, files: FakePersonMessage['attachments'] = []): APIAttachment[] {
    return files.map((file) => {
      const id = state.snowflake();
      const path = `/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`;
      state.attachments.set(path, { bytes: file.bytes, contentType: file.contentType ?? 'application/octet-stream' });
      const url = `${origin()}${path}?ex=0&is=0&hm=0`;
      const voice = file.durationSecs !== undefined ? { duration_secs: file.durationSecs, ...(file.waveform !== undefined && { waveform: file.waveform }) } : {};
      return { id, filename: file.filename, size: file.bytes.length, url, proxy_url: url, ...(file.contentType ? { content_type: file.contentType } : {}), ...voice };
    });
  }

  function interactionBase(channelId: string, user: APIUser) {
    const channel = state.channels.get(channelId);
    if (!channel) throw new Error(`fake Discord: no channel ${channelId}`);
    const id = state.snowflake();
    const token = Buffer.from(`interaction:${id}:fake-interaction-token`).toString('base64url');
    state.interactions.set(id, { id, token, channelId });
    const channelObject = channel.type === 1 ? { id: channel.id, type: 1, recipients: [user], flags: 0 } : { id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name, flags: 0, ...(channel.parentId ? { parent_id: channel.parentId } : {}) };
    const where = channel.guildId
      ? { guild_id: channel.guildId, guild: { id: channel.guildId, locale: 'en-US', features: [] }, guild_locale: 'en-US', member: { user, roles: [], permissions: '2248473465835073', joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 }, context: 0, authorizing_integration_owners: { '0': channel.guildId } }
      : { user, context: 1, authorizing_integration_owners: { '0': channel.id } };
    return { id, application_id: state.applicationId, token, version: 1, channel_id: channel.id, channel: channelObject, app_permissions: '2248473465835073', locale: 'en-US', entitlements: [], attachment_size_limit: 10_485_760, ...where };
  }

  function dispatchInteraction(payload: Record<string, unknown>): FakeDispatch<Record<string, unknown>> {
    const send = () => gateway.dispatch('INTERACTION_CREATE', payload);
    send();
    return { payload, redeliver: send };
  }

  return {
    messageCreate(options) {
      const channel = state.channels.get(options.channelId);
      if (!channel) throw new Error(`fake Discord: no channel ${options.channelId}`);
      const author = options.author ?? defaultUser();
      const referenced = options.replyTo ? state.messages.get(options.replyTo)?.message : undefined;
      const mentionedIds = new Set([...options.content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1]!));
      if (referenced && options.pingReplied !== false) mentionedIds.add(referenced.author.id);
      const mentions = knownUsers().filter((user, index, all) => mentionedIds.has(user.id) && all.findIndex((other) => other.id === user.id) === index);
      const sentAt = options.sentAt ?? Date.now();
      const message = {
        id: state.snowflake(sentAt),
        channel_id: channel.id,
        ...(channel.guildId ? { guild_id: channel.guildId, member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 } } : {}),
        author,
        content: options.content,
        timestamp: new Date(sentAt).toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: /@(everyone|here)\b/.test(options.content),
        mentions,
        mention_roles: [],
        attachments: attachmentsOf(channel.id, options.attachments),
        embeds: [],
        pinned: false,
        type: referenced ? 19 : 0,
        flags: 0,
        components: [],
        nonce: state.snowflake(),
        ...(referenced ? { message_reference: { type: 0, message_id: referenced.id, channel_id: channel.id, ...(channel.guildId ? { guild_id: channel.guildId } : {}) }, referenced_message: referenced } : {}),
      } as unknown as APIMessage;
      state.messages.set(message.id, { message, edits: 0 });
      const send = () => gateway.dispatch('MESSAGE_CREATE', message, (session) => contentFor(session, message, state.bot.id));
      send();
      return { payload: message, redeliver: send };
    },

    rawMessageCreate(message) {
      state.messages.set(message.id, { message, edits: 0 });
      const send = () => gateway.dispatch('MESSAGE_CREATE', message, (session) => contentFor(session, message, state.bot.id));
      send();
      return { payload: message, redeliver: send };
    },

    slashCommand(options) {
      const user = options.user ?? defaultUser();
      const registered = state.commands.find((command) => (command as { name?: string }).name === options.name) as { id?: string } | undefined;
      const data = { id: registered?.id ?? state.snowflake(), name: options.name, type: 1, ...(options.args !== undefined ? { options: [{ name: 'args', type: 3, value: options.args }] } : {}) };
      const payload: Record<string, unknown> = { ...interactionBase(options.channelId, user), type: 2, data };
      for (const field of options.without ?? []) delete payload[field];
      return dispatchInteraction(payload);
    },

    buttonPress(options) {
      const user = options.user ?? defaultUser();
      const message = state.messages.get(options.messageId)?.message;
      if (!message) throw new Error(`fake Discord: no message ${options.messageId}`);
      return dispatchInteraction({ ...interactionBase(options.channelId, user), type: 3, message, data: { custom_id: options.customId, component_type: options.componentType ?? 2, ...(options.componentType === 3 ? { values: ['a'] } : {}) } });
    },
  };
}
