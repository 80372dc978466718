/**
 * The web chat's requests turned into the neutral {@link InboundMessage} and
 * {@link ChannelAction}. A browser (its client id kept in localStorage) is one person in a
 * one-to-one conversation with the bot.
 */
import type { ChannelAction, ConversationAddress, InboundMessage, Sender } from '../types.ts';
import type { ActionBody, MessageBody, StopBody } from './web-requests.ts';

/** The platform name of the web chat. */
export const webPlatform = 'web';

/** The session key of a browser's conversation: `web:<clientId>`. */
export function webSessionKey(clientId: string): string {
  return `${webPlatform}:${clientId}`;
}

/** Where a browser's conversation lives. */
export function webAddress(clientId: string): ConversationAddress {
  return { platform: webPlatform, conversationId: clientId };
}

function webSender(clientId: string): Sender {
  return { id: clientId, name: 'web user' };
}

/**
 * `/name args` (a `@bot` suffix on the name dropped), or undefined for plain text. Names may hold
 * `-`, as skill names do (`/deploy-app staging`).
 */
export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9_-]+)(?:@\S+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? '').trim() };
}

/**
 * A message a person sent. The dedupe key `web:<clientId>:<id>` uses the page's own message id,
 * so a POST the page retries is recognised as the same message.
 */
export function toInboundMessage(body: MessageBody, receivedAt: number): InboundMessage {
  const command = parseCommand(body.text);
  return {
    id: body.id,
    dedupeKey: `${webPlatform}:${body.clientId}:${body.id}`,
    sessionKey: webSessionKey(body.clientId),
    address: webAddress(body.clientId),
    scope: 'dm',
    sender: webSender(body.clientId),
    text: body.text,
    attachments: [],
    mentioned: true,
    ...(command ? { command } : {}),
    receivedAt,
    raw: body,
  };
}

/**
 * The Stop button: the browser's own `/stop`, handed over like the typed command (the gateway
 * checks it the same way). Its dedupe key is its own (`web:<clientId>:stop:<id>`), so a retried
 * press stops once and never collides with a message id.
 */
export function toStopCommand(body: StopBody, receivedAt: number): InboundMessage {
  return {
    ...toInboundMessage({ clientId: body.clientId, id: body.id, text: '/stop' }, receivedAt),
    dedupeKey: `${webPlatform}:${body.clientId}:stop:${body.id}`,
    raw: body,
  };
}

/** A button press; `actionId` is the page's id for the press (or one made for it). */
export function toChannelAction(body: ActionBody, actionId: string): ChannelAction {
  return {
    id: actionId,
    dedupeKey: `${webPlatform}:${body.clientId}:action:${actionId}`,
    sessionKey: webSessionKey(body.clientId),
    address: webAddress(body.clientId),
    sender: webSender(body.clientId),
    data: body.data,
    ...(body.messageId !== undefined ? { messageId: body.messageId } : {}),
    raw: body,
  };
}
