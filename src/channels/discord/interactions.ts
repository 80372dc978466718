/**
 * Interactions as neutral events: a slash command (an application command of type chat input)
 * becomes an {@link InboundMessage} whose text is `/name args` (args: the string option `args`),
 * a button press a {@link ChannelAction} carrying the button's `custom_id`. Both are keyed
 * `discord:interaction:<id>`, the same on redelivery.
 */
import type { APIChatInputApplicationCommandInteraction, APIMessageComponentButtonInteraction, APIUser } from 'discord.js';
import type { ChannelAction, InboundMessage } from '../types.ts';
import type { DiscordConversation } from './conversation.ts';
import { senderOf } from './inbound.ts';

/** The user of an interaction: the member's in a guild, the user's in a DM. */
export function interactionUser(interaction: { member?: { user: APIUser }; user?: APIUser }): APIUser | undefined {
  return interaction.member?.user ?? interaction.user;
}

/** The `args` string option of a slash command ('' without one). */
function argsOf(interaction: APIChatInputApplicationCommandInteraction): string {
  const option = interaction.data.options?.find((candidate) => candidate.name === 'args');
  return option && 'value' in option && typeof option.value === 'string' ? option.value.trim() : '';
}

/**
 * A slash command as the {@link InboundMessage} `/name args`, or undefined without a user. In a
 * guild, its server is the message's group (named when `guildName` is given).
 */
export function toCommandMessage(interaction: APIChatInputApplicationCommandInteraction, conversation: DiscordConversation, now: number, guildName?: string): InboundMessage | undefined {
  const user = interactionUser(interaction);
  if (!user) return undefined;
  const name = interaction.data.name.toLowerCase();
  const args = argsOf(interaction);
  return {
    id: interaction.id,
    dedupeKey: `discord:interaction:${interaction.id}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    scope: conversation.scope,
    ...(conversation.scope === 'group' && interaction.guild_id !== undefined && { group: { kind: 'guild' as const, id: interaction.guild_id, ...(guildName ? { title: guildName } : {}) } }),
    sender: senderOf(user),
    text: args === '' ? `/${name}` : `/${name} ${args}`,
    attachments: [],
    mentioned: true,
    command: { name, args },
    receivedAt: now,
    raw: interaction,
  };
}

/** A button press as a {@link ChannelAction}, or undefined without a user. */
export function toButtonAction(interaction: APIMessageComponentButtonInteraction, conversation: DiscordConversation): ChannelAction | undefined {
  const user = interactionUser(interaction);
  if (!user) return undefined;
  return {
    id: interaction.id,
    dedupeKey: `discord:interaction:${interaction.id}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    sender: senderOf(user),
    data: interaction.data.custom_id,
    messageId: interaction.message.id,
    raw: interaction,
  };
}
