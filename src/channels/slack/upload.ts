/**
 * One {@link OutboundFile} shared into a conversation through the WebClient's `filesUploadV2`:
 * `files.getUploadURLExternal`, the bytes POSTed to the `upload_url` it answers, then
 * `files.completeUploadExternal` with `channel_id` (and `thread_ts`, so a file in a thread stays
 * in the thread). The file is read here, at send time. A 429 on any of the three steps is tried
 * again from the start by `call`: an upload nobody completed is never shared, so nothing repeats.
 */
import type { webApi } from '@slack/bolt';
import { readOutboundFile } from '../read-outbound-file.ts';
import { DeliveryError, type ConversationAddress, type OutboundFile } from '../types.ts';
import type { CallSlack } from './call-slack.ts';

/** Shares one file into a conversation; resolves with Slack's file id. */
export type SendSlackFile = (address: ConversationAddress, file: OutboundFile) => Promise<string>;

/** Makes a {@link SendSlackFile} refusing files over `maxFileBytes`, every call through `call`. */
export function createSendSlackFile(client: webApi.WebClient, call: CallSlack, maxFileBytes: number): SendSlackFile {
  return async (address, file) => {
    const bytes = await readOutboundFile(file, { platform: 'Slack', maxBytes: maxFileBytes });
    const destination = address.threadId === undefined ? { channel_id: address.conversationId } : { channel_id: address.conversationId, thread_ts: address.threadId };
    const result = await call('files.uploadV2', () =>
      client.filesUploadV2({
        ...destination,
        // The SDK takes binary data only as a Buffer (it refuses a plain Uint8Array).
        file: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        filename: file.name,
        title: file.name,
      }),
    );
    const id = result.files.flatMap((completion) => completion.files ?? [])[0]?.id;
    if (id === undefined) throw new DeliveryError(`Slack files.uploadV2 answered without a file id for ${file.name}`, { retryable: false });
    return id;
  };
}
