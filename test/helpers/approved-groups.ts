/**
 * Set-up for tests whose subject is not group approval but that talk in groups: the groups an
 * admin approved, written to the gateway's store through the pairing book (what `operator pairing
 * approve` does, without the code), before or while the gateway runs. Group approval itself is
 * tested in test/gateway/group-access.test.ts and the group-approval end-to-end tests.
 *
 * @example
 * await approveGroups(fakes.home, [{ platform: 'telegram', kind: 'group', id: String(group) }]);
 */
import { PairingBook, type PairingGroup, type PairingPerson } from '../../src/gateway/access/index.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';

/** Approves `groups` in the filesystem store of `home` (OPERATOR_HOME), as added by admin `by`. */
export async function approveGroups(home: string, groups: readonly PairingGroup[], by = 'telegram:admin'): Promise<void> {
  const store = createStoreFromEnv({ OPERATOR_HOME: home });
  try {
    const book = new PairingBook(store);
    for (const group of groups) await book.groups.admit(group, by);
  } finally {
    await store.close();
  }
}

/** Pairs `people` in the filesystem store of `home`: each asks for a code and an admin approves it, as `operator pairing approve` does. */
export async function pairPeople(home: string, people: readonly PairingPerson[]): Promise<void> {
  const store = createStoreFromEnv({ OPERATOR_HOME: home });
  try {
    const book = new PairingBook(store);
    for (const person of people) await book.approve((await book.request(person)).code);
  } finally {
    await store.close();
  }
}

/** A Telegram group by its chat id. */
export function telegramGroup(chatId: number | string): PairingGroup {
  return { platform: 'telegram', kind: 'group', id: String(chatId) };
}

/** A Slack channel by its id. */
export function slackChannel(channelId: string): PairingGroup {
  return { platform: 'slack', kind: 'channel', id: channelId };
}

/** A Discord server by its id. */
export function discordServer(guildId: string): PairingGroup {
  return { platform: 'discord', kind: 'guild', id: guildId };
}
