/**
 * The settings of `operator.json` a Worker reads from its variables (`worker-settings.ts`), inside
 * workerd: edited messages, Slack threads and the transcription limits are applied; an invalid
 * value is named without its value and the default stands; and a recording longer than
 * `OPERATOR_TRANSCRIBE_MAX_SECONDS` is not transcribed.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterEach, expect, it, vi } from 'vitest';
import type { InboxEntry } from '../../src/gateway/inbox.ts';
import { createInboundFiles } from '../../src/worker/inbound-files.ts';
import { objectStore } from '../../src/worker/object-store.ts';
import { workerConfig } from '../../src/worker/worker-config.ts';
import { workerSpending } from '../../src/worker/worker-spending.ts';
import { callFake, readFake } from './support/fakes.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

it('applies OPERATOR_EDITED_MESSAGES, SLACK_REPLY_IN_THREAD and the transcription limits', () => {
  const { config, problems } = workerConfig({ ...env, OPERATOR_EDITED_MESSAGES: 'reanswer', SLACK_REPLY_IN_THREAD: 'mentions', OPERATOR_TRANSCRIBE_MAX_SECONDS: '90', OPERATOR_TRANSCRIBE_MAX_BYTES: '1048576' });
  expect(problems).toEqual([]);
  expect(config.editedMessages).toBe('reanswer');
  expect(config.slack.replyInThread).toBe('mentions');
  expect(config.transcription).toEqual({ maxSeconds: 90, maxBytes: 1_048_576 });
  // Unset: the defaults of operator.json.
  const defaults = workerConfig({ ...env }).config;
  expect([defaults.editedMessages, defaults.slack.replyInThread, defaults.transcription]).toEqual(['ignore', 'always', { maxSeconds: 600, maxBytes: 25 * 1024 * 1024 }]);
});

it('names an invalid value without quoting it, and keeps the default', () => {
  const logged: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  const { config, problems } = workerConfig({ ...env, OPERATOR_EDITED_MESSAGES: 'always-secret', OPERATOR_TRANSCRIBE_MAX_SECONDS: 'ten-secret', OPERATOR_TRANSCRIBE_MAX_BYTES: '0' });
  expect(problems).toEqual([
    { path: 'OPERATOR_EDITED_MESSAGES', reason: 'expected one of "ignore", "reanswer"' },
    { path: 'OPERATOR_TRANSCRIBE_MAX_SECONDS', reason: 'expected an integer' },
    { path: 'OPERATOR_TRANSCRIBE_MAX_BYTES', reason: 'must be at least 1' },
  ]);
  expect(config.editedMessages).toBe('ignore');
  expect(config.transcription).toEqual({ maxSeconds: 600, maxBytes: 25 * 1024 * 1024 });
  expect(logged).toContain('operator: OPERATOR_TRANSCRIBE_MAX_BYTES: must be at least 1 (not applied)');
  expect(logged.join('\n')).not.toContain('secret');
});

it('does not transcribe a recording longer than OPERATOR_TRANSCRIBE_MAX_SECONDS', async () => {
  await callFake('model', 'reset');
  const update = await callFake<{ message: { voice: { file_id: string } } }>('telegram', 'voiceMessage', { chatId: 5252, duration: 31 });
  const entry: InboxEntry = {
    key: 'voice:31',
    dedupeKey: 'voice:31',
    sessionKey: 'telegram:dm:5252',
    address: { platform: 'telegram', conversationId: '5252' },
    scope: 'dm',
    messageId: '31',
    sender: { id: '5252' },
    text: '',
    attachments: [{ kind: 'file', mediaType: 'audio/ogg', name: 'voice.ogg', size: 300, recording: { kind: 'voice', seconds: 31 } }],
    receivedAt: Date.now(),
  };
  const shorter = { ...env, OPERATOR_TRANSCRIBE_MAX_SECONDS: '30' };
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('voice-with-a-shorter-limit'));
  const read = await runInDurableObject(stub, async (_instance, state) => {
    const files = createInboundFiles({ env: shorter, store: objectStore(state.storage), durable: () => state.storage.sync(), spending: (sessionKey) => workerSpending(shorter, sessionKey), log: () => undefined });
    const { attachments: _attachments, ...rest } = entry;
    await files.note({ ...rest, id: '31', attachments: [{ ...entry.attachments[0]!, ref: update.message.voice.file_id }], mentioned: true });
    return files.read([{ entry, admin: true }]);
  });
  expect(read.texts[0]).toContain('[a voice note (0:31) came with this message but was not transcribed: it is longer than the 0:30 that is transcribed]');
  expect(read.notices.map((notice) => notice.text)).toEqual(['Your voice note is 0:31 long, longer than the 0:30 I can transcribe, so I did not hear it: please send a shorter one or type it.']);
  expect(await readFake<unknown[]>('model', 'transcriptions')).toEqual([]);
});
