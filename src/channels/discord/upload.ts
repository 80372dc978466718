/**
 * One {@link OutboundFile} as one Discord message: `POST /channels/{id}/messages` as a multipart
 * form (`payload_json` and `files[0]`), through discord.js's REST `files` option. The file is read
 * here, at send time, and refused before any call when it is over the bot's upload limit.
 */
import { Routes, type APIMessage, type RESTPostAPIChannelMessageJSONBody } from 'discord.js';
import { readOutboundFile } from '../read-outbound-file.ts';
import type { OutboundFile } from '../types.ts';
import type { CallDiscord } from './call-discord.ts';

/** What a file's message carries besides the file (buttons, a reply, `allowed_mentions`). */
export type FileMessageBody = Pick<RESTPostAPIChannelMessageJSONBody, 'components' | 'allowed_mentions' | 'message_reference' | 'nonce' | 'enforce_nonce'>;

/** Sends one file to a channel as a message of its own; resolves with the message. */
export type SendDiscordFile = (channelId: string, file: OutboundFile, body: FileMessageBody) => Promise<APIMessage>;

/** Makes a {@link SendDiscordFile} refusing files over `maxFileBytes`, every call through `call`. */
export function createSendDiscordFile(call: CallDiscord, maxFileBytes: number): SendDiscordFile {
  return async (channelId, file, body) => {
    const bytes = await readOutboundFile(file, { platform: 'Discord', maxBytes: maxFileBytes });
    // `attachments` names the file part (`files[0]`) as the chat shows it; no `content`, so the
    // message is the file alone.
    const payload = { ...body, attachments: [{ id: 0, filename: file.name }] };
    const files = [{ name: file.name, data: bytes, contentType: file.mediaType }];
    return call<APIMessage>('createMessage', (rest) => rest.post(Routes.channelMessages(channelId), { body: payload, files }));
  };
}
