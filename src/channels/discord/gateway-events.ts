/**
 * What the adapter does with the gateway's dispatches. A channel's messages are handed over one at
 * a time, in arrival order, each waited for until the gateway has it on record; different
 * channels' side by side (one serial queue per channel; an idle channel keeps nothing). A gateway dispatch cannot be
 * left unacknowledged for Discord to deliver again, so when the gateway refuses one
 * ({@link NotAcceptedError}) the person is asked, in the channel, to send it again. Slash
 * commands are acknowledged at once with a deferred response ("thinking…"), which the first
 * message to that channel completes; button presses at once with a deferred update, then handed
 * over without waiting.
 */
import { InteractionType, Routes, type APIChatInputApplicationCommandInteraction, type APIInteraction, type GatewayMessageCreateDispatchData, type GatewayMessageUpdateDispatchData, type APIMessageComponentButtonInteraction } from 'discord.js';
import { createSessionQueue } from '../../core/session-queue.ts';
import { NotAcceptedError, type ChannelHandlers } from '../types.ts';
import type { CallDiscord } from './call-discord.ts';
import type { ChannelKinds, GuildOf } from './channel-kinds.ts';
import type { CatchUpTarget } from './catch-up.ts';
import { conversationOf, type DiscordConversation } from './conversation.ts';
import { describeError, type Scrub } from './discord-errors.ts';
import { isEdit, toEditedMessage } from './edited-message.ts';
import { isForAdapter, toInboundMessage, type InboundContext } from './inbound.ts';
import type { InteractionTokens } from './interaction-tokens.ts';
import { interactionUser, toButtonAction, toCommandMessage } from './interactions.ts';
import type { DiscordOutbound } from './outbound.ts';
import type { OutsideErrors } from '../outside-errors.ts';

/** The notice sent when the gateway could not take a message. */
export const notAcceptedNotice = 'Sorry, I could not take that message just now. Please send it again in a moment.';

/** What the dispatch handlers need. */
export interface GatewayEventsContext {
  handlers(): ChannelHandlers | undefined;
  inbound(): InboundContext | undefined;
  allowBots: boolean;
  channelKinds: ChannelKinds;
  /** The server of a guild channel: the group access approves (see `channel-kinds.ts`). */
  guildOf: GuildOf;
  call: CallDiscord;
  tokens: InteractionTokens;
  outbound: DiscordOutbound;
  log(line: string): void;
  scrub: Scrub;
  /** Where a dispatch whose handling threw is reported (see `../outside-errors.ts`). */
  outside: OutsideErrors;
}

/** The handlers of MESSAGE_CREATE, MESSAGE_UPDATE and INTERACTION_CREATE. */
export interface GatewayEvents {
  messageCreate(message: GatewayMessageCreateDispatchData): void;
  /** An edit (`editedMessages`): handed over marked `edited`; other updates are dropped. */
  messageUpdate(update: GatewayMessageUpdateDispatchData): void;
  interactionCreate(interaction: APIInteraction): void;
  /**
   * Hands over the messages missed while not connected (see `catch-up.ts`) in each conversation
   * `plan` names, oldest first and before any message that arrives there from now on, so a
   * conversation's messages stay in order. Messages of other conversations wait only until the
   * plan is known (a read of the gateway's store), not for the history to be read.
   */
  catchUp(plan: () => Promise<CatchUpTarget[]>): void;
  /** Resolves once every message handed over so far is done with. */
  settled(): Promise<void>;
}

/** Creates the dispatch handlers. */
export function createGatewayEvents(context: GatewayEventsContext): GatewayEvents {
  const { log, scrub, tokens } = context;
  const channels = createSessionQueue();
  /** Runs `job` in its channel's queue; what it throws is logged, or reported as handling `dispatch`'s throw. */
  const queue = (channelId: string, job: () => Promise<void>, dispatch?: string) => {
    channels.run(channelId, job).catch((error: unknown) => {
      if (dispatch) context.outside.report(dispatch, error);
      else log(`discord: dispatch not handled: ${describeError(error, scrub)}`);
    });
  };
  /** Jobs that came while a catch-up was being planned: queued once the plan is (after its reads). */
  let held: [string, () => Promise<void>, string | undefined][] | undefined;
  let planning: Promise<void> = Promise.resolve();
  const enqueue = (channelId: string, job: () => Promise<void>, dispatch?: string) => {
    if (held) held.push([channelId, job, dispatch]);
    else queue(channelId, job, dispatch);
  };

  async function handOver(messageId: string, deliver: (handlers: ChannelHandlers) => Promise<void>, refused: () => Promise<void>): Promise<void> {
    const handlers = context.handlers();
    if (!handlers) return;
    try {
      await deliver(handlers);
    } catch (error) {
      if (!(error instanceof NotAcceptedError)) return log(`discord: handler failed for ${messageId}: ${describeError(error, scrub)}`);
      log(`discord: ${messageId} not taken (${describeError(error, scrub)}); asking the sender to send it again`);
      await refused().catch((noticeError: unknown) => log(`discord: notice for ${messageId} failed: ${describeError(noticeError, scrub)}`));
    }
  }

  async function onMessage(payload: GatewayMessageCreateDispatchData, known?: DiscordConversation, edit?: GatewayMessageUpdateDispatchData): Promise<void> {
    const inbound = context.inbound();
    if (!inbound || !isForAdapter(payload, inbound.botId, context.allowBots)) return;
    const conversation = known ?? conversationOf(payload.channel_id, await context.channelKinds(payload.channel_id, { guildId: payload.guild_id, userId: payload.author.id }));
    const found = conversation.scope === 'group' ? context.guildOf(payload.channel_id, payload.guild_id) : undefined;
    const group = found instanceof Promise ? await found : found;
    const message = edit ? toEditedMessage(edit, conversation, inbound, group) : toInboundMessage(payload, conversation, inbound, group);
    if (!message) return;
    await handOver(`message ${payload.id}`, (handlers) => handlers.onMessage(message), async () => {
      await context.outbound.notice(conversation.address, notAcceptedNotice, payload.id);
    });
  }

  async function acknowledge(interaction: APIInteraction, type: 5 | 6): Promise<boolean> {
    try {
      await context.call('interactionCallback', (rest) => rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body: { type }, auth: false }));
      return true;
    } catch (error) {
      log(`discord: interaction ${interaction.id} could not be acknowledged: ${describeError(error, scrub)}`);
      return false;
    }
  }

  /**
   * A slash command takes its place in its channel's queue at once, in arrival order: a message
   * sent right after it waits behind it (else that message's answer would complete the command's
   * deferred response). Meanwhile the command is acknowledged (Discord allows 3 s) and its
   * conversation looked up.
   */
  function onCommand(interaction: APIChatInputApplicationCommandInteraction, inbound: InboundContext): void {
    const user = interactionUser(interaction);
    const channelId = interaction.channel?.id ?? interaction.channel_id;
    if (!user || !channelId) return;
    const prepared = (async () => {
      const acknowledged = await acknowledge(interaction, 5);
      if (acknowledged) tokens.deferred(channelId, interaction.token, interaction.id);
      const kind = await context.channelKinds(channelId, { guildId: interaction.guild_id, userId: user.id, ...(interaction.channel ? { channel: interaction.channel } : {}) });
      const found = interaction.guild_id === undefined ? undefined : context.guildOf(channelId, interaction.guild_id);
      const guild = found instanceof Promise ? await found : found;
      return { acknowledged, message: toCommandMessage(interaction, conversationOf(channelId, kind), inbound.now(), guild?.title) };
    })();
    // Awaited in the queue; until then a failure must not count as unhandled.
    prepared.catch(() => undefined);
    enqueue(
      channelId,
      async () => {
        const { acknowledged, message } = await prepared;
        if (!message) return;
        await handOver(`interaction ${interaction.id}`, (handlers) => handlers.onMessage(message), async () => {
          if (acknowledged) await context.outbound.completeDeferred(channelId, interaction.token, notAcceptedNotice);
        });
      },
      'INTERACTION_CREATE',
    );
  }

  async function onButton(interaction: APIMessageComponentButtonInteraction): Promise<void> {
    // Acknowledged first, whatever it is: Discord shows "This interaction failed" after 3 s.
    if (await acknowledge(interaction, 6)) tokens.action(interaction.id, interaction.token);
    const user = interactionUser(interaction);
    const channelId = interaction.channel?.id ?? interaction.channel_id;
    if (!user || !channelId) return;
    const kind = await context.channelKinds(channelId, { guildId: interaction.guild_id, userId: user.id, ...(interaction.channel ? { channel: interaction.channel } : {}) });
    const action = toButtonAction(interaction, conversationOf(channelId, kind));
    const handlers = context.handlers();
    if (!action || !handlers) return;
    void handlers.onAction(action).catch((error: unknown) => log(`discord: action handler failed for interaction ${interaction.id}: ${describeError(error, scrub)}`));
  }

  return {
    messageCreate(payload) {
      enqueue(payload.channel_id, () => onMessage(payload), 'MESSAGE_CREATE');
    },
    messageUpdate(payload) {
      // In its channel's queue: an edit comes after the message it rewords.
      if (isEdit(payload)) enqueue(payload.channel_id, () => onMessage(payload as GatewayMessageCreateDispatchData, undefined, payload), 'MESSAGE_UPDATE');
    },
    catchUp(plan) {
      const waiting: [string, () => Promise<void>, string | undefined][] = [];
      held = waiting;
      planning = plan()
        .then((targets) => {
          // Each conversation's reading goes first in its queue: what came meanwhile waits behind it.
          for (const target of targets) {
            queue(target.channelId, async () => {
              for (const payload of await target.read()) await onMessage(payload, target.conversation);
            });
          }
        })
        .catch((error: unknown) => log(`discord: missed messages not looked for: ${describeError(error, scrub)}`))
        .finally(() => {
          if (held === waiting) held = undefined;
          for (const [channelId, job, dispatch] of waiting) queue(channelId, job, dispatch);
        });
    },
    interactionCreate(interaction) {
      const inbound = context.inbound();
      if (!inbound || !context.handlers()) return;
      if (interaction.type === InteractionType.ApplicationCommand && interaction.data.type === 1) onCommand(interaction as APIChatInputApplicationCommandInteraction, inbound);
      // Any component (a select menu too): the gateway makes only buttons, so another is a stale press, answered as one.
      if (interaction.type === InteractionType.MessageComponent) onButton(interaction as APIMessageComponentButtonInteraction).catch((error: unknown) => context.outside.report('INTERACTION_CREATE', error));
    },
    async settled() {
      await planning;
      await channels.drain();
    },
  };
}
