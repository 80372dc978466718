/**
 * `/lsp`: the gateway's command over a real runtime (its sandbox, its language server pool), the
 * rest of the gateway stubbed: an admin gets every language with its server as the runtime finds
 * it, in the sandbox; anyone else is refused.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultBrowserSettings } from '../../src/browser/browser-settings.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createSessionQueue } from '../../src/core/session-queue.ts';
import { handleCommand } from '../../src/gateway/commands.ts';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { writeServerFixtures } from '../helpers/language-server-fixtures.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { recordingAdapter } from '../helpers/recording-adapter.ts';

let home: string;
let machineHome: string;
let runtime: Runtime;
let gateway: Gateway;
const { adapter, replies } = recordingAdapter();

beforeAll(() => {
  home = createTempHome();
  machineHome = createTempHome('operator-lsp-machine-');
  const secret = path.join(home, 'web-token');
  writeFileSync(secret, 'secret');
  const bin = writeServerFixtures(machineHome, secret);
  runtime = new Runtime({ env: { OPERATOR_HOME: home, HOME: machineHome, PATH: bin, ANTHROPIC_API_KEY: 'sk-test-never-used' }, browser: { base: { ...defaultBrowserSettings, enabled: false }, profiles: {} } });
  gateway = { runtime, queue: createSessionQueue(), log: () => undefined } as unknown as Gateway;
});
afterAll(async () => {
  await runtime.close();
  removeTempHome(home);
  removeTempHome(machineHome);
});

function message(scope: 'dm' | 'group'): InboundMessage {
  return {
    id: `m${Math.random()}`,
    dedupeKey: `d${Math.random()}`,
    sessionKey: scope === 'dm' ? 'telegram:dm:42' : 'telegram:group:-100',
    address: { platform: 'telegram', conversationId: scope === 'dm' ? '42' : '-100' },
    scope,
    sender: { id: '42', name: 'Ada' },
    text: '/lsp',
    attachments: [],
    mentioned: true,
    command: { name: 'lsp', args: '' },
    receivedAt: Date.now(),
    raw: undefined,
  };
}

async function lsp(scope: 'dm' | 'group', admin: boolean): Promise<string> {
  await handleCommand(gateway, adapter, message(scope), admin);
  return replies.at(-1)!;
}

describe('/lsp', { timeout: 30_000 }, () => {
  it('lists each language with the server found for it, what runs, and the isolation, for an admin', async () => {
    const lines = (await lsp('dm', true)).split('\n');
    expect(lines[0]).toBe('Language servers of the code tool:');
    expect(lines[1]).toMatch(/^- TypeScript and JavaScript: typescript-language-server \(TypeScript [\d.]+\)$/);
    expect(lines[2]).toBe(`- Rust: rust-analyzer at ${machineHome}/.cargo/bin/rust-analyzer, but it does not run here: error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.`);
    // Answered in the runtime's sandbox, where OPERATOR_HOME (and its secret) is hidden.
    expect(lines[3]).toBe(`- Python: pyright-langserver (pyright 1.1.408) at ${machineHome}/bin/pyright-langserver (found; the code tool drives only the TypeScript server, pylsp and gopls so far)`);
    expect(lines[4]).toBe(`- Go: gopls at ${machineHome}/bin/gopls, but it runs go, and there is none on PATH (apt-get install golang-go)`);
    expect(lines[5]).toBe('Running: none (each starts on the first code call about its project)');
    expect(lines[6]).toBe('Isolation: in the bubblewrap sandbox');
  });

  it("is an admin's: a member in a group and a person in a direct conversation who is not one are refused", async () => {
    expect(await lsp('group', false)).toBe('/lsp is for admins only.');
    expect(await lsp('dm', false)).toBe('/lsp is for admins only.');
  });
});
