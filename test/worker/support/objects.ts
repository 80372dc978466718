/** What a conversation's Durable Object holds, asked from the tests inside workerd. */
import { env, runInDurableObject } from 'cloudflare:test';
import type { WireMessage } from '../../../src/worker/wire-message.ts';
import type { WorkerEnv } from '../../../src/worker/worker-env.ts';

const objectOf = (sessionKey: string) => {
  const { CONVERSATIONS } = env as WorkerEnv;
  return CONVERSATIONS.get(CONVERSATIONS.idFromName(sessionKey));
};

/**
 * Whether the conversation `sessionKey` has the message `dedupeKey` on record: offered again, it
 * is refused as seen. (Whether it still waits depends on how far its turn has got.)
 */
export async function onRecord(sessionKey: string, dedupeKey: string): Promise<boolean> {
  const [platform = 'test'] = sessionKey.split(':');
  const probe: WireMessage = {
    id: 'probe',
    dedupeKey,
    sessionKey,
    address: { platform, conversationId: 'probe' },
    scope: 'dm',
    sender: { id: 'probe' },
    text: '/help',
    attachments: [],
    mentioned: true,
    receivedAt: Date.now(),
  };
  return !(await objectOf(sessionKey).accept(probe));
}

/** Whether the conversation `sessionKey` has nothing kept at all (its object's storage is empty). */
export async function nothingKept(sessionKey: string): Promise<boolean> {
  return runInDurableObject(objectOf(sessionKey), async (_object, state) => (await state.storage.list()).size === 0);
}

/**
 * Empties the conversation object of `sessionKey` (its storage and alarm) and drops its instance,
 * as for a conversation never seen: the Worker's test files share one workerd and its storage
 * (`isolate: false`), and the admin's chat is every file's, so a test that counts what an object
 * holds starts from this.
 */
export async function freshObject(sessionKey: string): Promise<void> {
  await runInDurableObject(objectOf(sessionKey), async (_object, state) => {
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
    state.abort('made fresh by the test');
  }).catch(() => undefined);
}
