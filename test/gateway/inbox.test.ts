import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createInbox } from '../../src/gateway/inbox.ts';
import { createStore } from '../../src/store/index.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

function message(dedupeKey: string, receivedAt: number, extra: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: '7',
    dedupeKey,
    sessionKey: 'telegram:dm:42',
    address: { platform: 'telegram', conversationId: '42' },
    scope: 'dm',
    sender: { id: '42', name: 'Ada' },
    text: 'raw text',
    attachments: [],
    mentioned: false,
    receivedAt,
    raw: { marker: 'platform-object-marker' },
    ...extra,
  };
}

describe('inbox', () => {
  it('keeps accepted messages until done, lists them oldest first, and survives a reopened store', async () => {
    const base = await makeTempDir('operator-inbox-');
    const inbox = createInbox(createStore({ driver: 'fs', base }));
    const later = await inbox.add(message('telegram:update:2', 2_000), 'second');
    const photo = { kind: 'image' as const, mediaType: 'image/jpeg', size: 10, download: async () => new Uint8Array() };
    const earlier = await inbox.add(message('telegram:update:1', 1_000, { attachments: [photo] }), 'first');
    const third = await inbox.add(message('telegram:update:3', 3_000), 'third');
    await inbox.done(later);

    // A new process on the same folder.
    const pending = await createInbox(createStore({ driver: 'fs', base })).pending();
    expect(pending.map((entry) => [entry.key, entry.text])).toEqual([
      [earlier, 'first'],
      [third, 'third'],
    ]);
    expect(pending[0]).toMatchObject({ dedupeKey: 'telegram:update:1', sessionKey: 'telegram:dm:42', messageId: '7', sender: { id: '42', name: 'Ada' }, receivedAt: 1_000 });
    expect(pending[0]!.attachments).toEqual([{ kind: 'image', mediaType: 'image/jpeg', size: 10, name: undefined }]);
    expect(JSON.stringify(pending)).not.toContain('platform-object-marker');
  });

  it('drops entries that expired, and skips a record a crash tore', async () => {
    let now = 0;
    const base = await makeTempDir('operator-inbox-');
    const store = createStore({ driver: 'fs', base, now: () => now });
    const inbox = createInbox(store, { ttlSeconds: 60, now: () => now });
    await inbox.add(message('old', 0), 'old one');
    now = 30_000;
    const fresh = await inbox.add(message('fresh', now), 'fresh one');
    // A crash while appending the next record leaves half a line.
    const [segment] = await store.list('journal:inbox:');
    appendFileSync(join(base, ...segment!.split(':')), '{"k":"torn","t":30000,"v":{"sessionKey":"tele');
    now = 61_000;
    const reopened = createInbox(createStore({ driver: 'fs', base, now: () => now }), { ttlSeconds: 60, now: () => now });
    expect((await reopened.pending()).map((entry) => entry.key)).toEqual([fresh]);
    await reopened.add(message('after', now), 'after the torn record');
    expect((await reopened.pending()).map((entry) => entry.key)).toEqual([fresh, 'after']);
  });
});
