import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy } from '../../src/gateway/access/index.ts';
import { loadConfig } from '../../src/gateway/config/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { runOperator } from '../helpers/operator-process.ts';

function dm(userId: string, name: string): InboundMessage {
  return {
    id: '1',
    dedupeKey: `telegram:update:${userId}`,
    sessionKey: `telegram:dm:${userId}`,
    address: { platform: 'telegram', conversationId: userId },
    scope: 'dm',
    sender: { id: userId, name, username: name.toLowerCase() },
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
  home = mkdtempSync(join(tmpdir(), 'operator-pairing-cli-'));
  store = createStore({ driver: 'fs', base: join(home, 'state') });
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('operator pairing', () => {
  it('lists a waiting code, approves it from another process, and the gateway lets the person in', async () => {
    const { config } = loadConfig({ OPERATOR_HOME: home });
    const access = createAccessPolicy(config, store);
    const decision = await access.check(dm('42', 'Ada'));
    const code = /\n\n([A-Z0-9]{8})\n\n/.exec(decision.allowed ? '' : (decision.reply ?? ''))![1]!;

    const listed = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^Waiting for approval:\\n  ${code}  telegram:42 Ada \\(@ada\\)  asked \\d+ minutes? ago, expires in \\d+ minutes?\\nApproved:\\n  none\\n$`));

    const approved = await runOperator(['pairing', 'approve', code.toLowerCase()], { OPERATOR_HOME: home });
    expect(approved).toEqual({ code: 0, stdout: 'Paired telegram:42 Ada (@ada): they can now talk to the bot in direct messages.\n', stderr: '' });
    expect(await access.check(dm('42', 'Ada'))).toEqual({ allowed: true, admin: false });

    const after = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(after.stdout).toMatch(new RegExp(String.raw`^Waiting for approval:\n  none\nApproved:\n  telegram:42 Ada \(@ada\)  since \d{4}-\d\d-\d\d \d\d:\d\d UTC\n$`));
  });

  it('explains an unknown code and exits 1', async () => {
    const result = await runOperator(['pairing', 'approve', 'ABCDEFGH'], { OPERATOR_HOME: home });
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'Unknown pairing code ABCDEFGH: check it, or ask the person to write to the bot again for a new one\n' });
  });

  it('shows the usage for a missing code', async () => {
    const result = await runOperator(['pairing', 'approve'], { OPERATOR_HOME: home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: operator pairing approve CODE | list');
  });
});
