/**
 * `operator pairing` and groups, as a person types it (the real command, another process than
 * the one that gave the code): a group's code declined, refused as an owner, and a group's
 * approval taken back with a note of what still lets it in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy, PairingBook } from '../../src/gateway/access/index.ts';
import { loadConfig } from '../../src/gateway/config/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { runOperator } from '../helpers/operator-process.ts';

/** A mention of the bot in Telegram group `chatId`, by Mallory. */
function mention(chatId: string): InboundMessage {
  return {
    id: '1',
    dedupeKey: `telegram:update:${chatId}`,
    sessionKey: `telegram:group:${chatId}`,
    address: { platform: 'telegram', conversationId: chatId },
    scope: 'group',
    group: { kind: 'group', id: chatId, title: 'Den' },
    sender: { id: '66', name: 'Mallory' },
    text: 'hi',
    attachments: [],
    mentioned: true,
    receivedAt: 0,
    raw: null,
  };
}

let home: string;
let store: Store;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-pairing-cli-groups-'));
  store = createStore({ driver: 'fs', base: join(home, 'state') });
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

/** The code the access policy gives a first mention in group `chatId`. */
async function codeFor(chatId: string): Promise<string> {
  const decision = await createAccessPolicy(loadConfig({ OPERATOR_HOME: home }).config, store).check(mention(chatId));
  return /\/pair ([A-Z0-9]{8})\n/.exec(decision.allowed ? '' : (decision.reply ?? ''))![1]!;
}

describe('operator pairing: groups', () => {
  it("declines a group's code: listed as declined, the group silent and given no code for a day", async () => {
    const code = await codeFor('-1001');
    const denied = await runOperator(['pairing', 'deny', code], { OPERATOR_HOME: home });
    expect(denied).toEqual({ code: 0, stdout: `Declined telegram:group:-1001 "Den": code ${code} is dropped. For 24 hours the bot stays silent there, with no new code; then a mention gets a new one.\n`, stderr: '' });
    const listed = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(listed.stdout).toMatch(/\nGroups waiting for approval:\n {2}none\nGroups approved:\n {2}none\nGroups declined:\n {2}telegram:group:-1001 "Den" {2}refused until \d{4}-\d\d-\d\d \d\d:\d\d UTC\n$/);
    expect(await createAccessPolicy(loadConfig({ OPERATOR_HOME: home }).config, store).check(mention('-1001'))).toEqual({ allowed: false, reason: 'group declined by an admin' });
  });

  it("refuses to make a group's code the owner, and changes nothing", async () => {
    const code = await codeFor('-1002');
    const refused = await runOperator(['pairing', 'approve', code, '--owner'], { OPERATOR_HOME: home });
    expect(refused).toEqual({ code: 1, stdout: '', stderr: `Pairing code ${code} is a group's (telegram:group:-1002 "Den"): a group cannot be the owner\n` });
    expect((await new PairingBook(store).list()).groups.pending.map((request) => request.code)).toEqual([code]);
  });

  it("takes a group's approval back, and says when operator.json still serves it", async () => {
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ groupPolicy: { telegram: 'open' }, allowlists: { telegram: { chats: ['-1009'] } } }));
    await new PairingBook(store).groups.admit({ platform: 'telegram', kind: 'group', id: '-1009', title: 'Den' }, 'telegram:1');
    const revoked = await runOperator(['pairing', 'revoke', 'telegram:group:-1009'], { OPERATOR_HOME: home });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.split('\n')).toEqual([
      'Revoked telegram:group:-1009 "Den": the bot no longer answers there; the next mention gets a new code (under groupPolicy approval).',
      'Note: groupPolicy.telegram is "open" in operator.json (or OPERATOR_GROUP_POLICY), which still serves every group: change it there.',
      'Note: -1009 is also in allowlists.telegram.chats in operator.json, which still serves it: remove it there.',
      '',
    ]);
    expect(await new PairingBook(store).groups.isApproved({ platform: 'telegram', kind: 'group', id: '-1009' })).toBe(false);
  });
});
