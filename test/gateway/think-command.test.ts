/**
 * `/think`: the gateway's command over a real runtime, store and conversations (the rest of the
 * gateway stubbed), with the real Anthropic SDK against the fake model server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultBrowserSettings } from '../../src/browser/browser-settings.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createSessionQueue } from '../../src/core/session-queue.ts';
import { handleCommand } from '../../src/gateway/commands.ts';
import { Conversations, modelChoiceKey, parseThinkingChoice, thinkingChoiceKey } from '../../src/gateway/conversations.ts';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { recordingAdapter } from '../helpers/recording-adapter.ts';

let server: FakeModelServer;
let home: string;
let runtime: Runtime;
let conversations: Conversations;
let gateway: Gateway;
const { adapter, replies } = recordingAdapter();

beforeAll(async () => {
  server = await startFakeModelServer();
  home = createTempHome();
  runtime = new Runtime({
    env: { OPERATOR_HOME: home, HOME: home, OPERATOR_REVIEW_EVERY: '0', ...fakeAnthropicEnv(server) },
    browser: { base: { ...defaultBrowserSettings, enabled: false }, profiles: {} },
    reasoningEfforts: { default: 'low' },
  });
  conversations = new Conversations({ runtime, bindings: async () => ({}), askApproval: async () => false });
  gateway = { runtime, conversations, queue: createSessionQueue(), log: () => undefined } as unknown as Gateway;
});
afterAll(async () => {
  await runtime.close();
  await server.close();
  removeTempHome(home);
});
beforeEach(() => {
  server.reset();
  replies.length = 0;
});

function message(text: string, options: { scope?: 'dm' | 'group'; sessionKey?: string } = {}): InboundMessage {
  const [name = '', ...args] = text.slice(1).split(' ');
  const scope = options.scope ?? 'dm';
  return {
    id: `m${Math.random()}`,
    dedupeKey: `d${Math.random()}`,
    sessionKey: options.sessionKey ?? (scope === 'dm' ? 'telegram:dm:42' : 'telegram:group:-100'),
    address: { platform: 'telegram', conversationId: scope === 'dm' ? '42' : '-100' },
    scope,
    sender: { id: '42', name: 'Ada' },
    text,
    attachments: [],
    mentioned: true,
    command: { name, args: args.join(' ') },
    receivedAt: Date.now(),
    raw: undefined,
  };
}

async function command(text: string, options: { scope?: 'dm' | 'group'; sessionKey?: string; admin?: boolean } = {}): Promise<string> {
  await handleCommand(gateway, adapter, message(text, options), options.admin ?? false);
  return replies.at(-1)!;
}

describe('/think', () => {
  it("shows the profile's default, sets the conversation's own effort, and the next turn thinks that hard", async () => {
    expect(await command('/think')).toBe('Thinking: low (the default of profile default).');
    const before = (await conversations.get(message('/x'))).agent;

    expect(await command('/think high')).toBe('Thinking is now high.');
    expect(await runtime.store.get(thinkingChoiceKey('telegram:dm:42'))).toBe('high');
    const after = (await conversations.get(message('/x'))).agent;
    expect(after).not.toBe(before);
    expect(after.options.reasoningEffort).toBe('high');
    expect(await command('/think')).toBe("Thinking: high (chosen here; /think default for the profile's).");

    server.enqueue({ thinking: { text: 'Deeply.', signature: 'sig' }, text: 'A considered answer.' });
    expect((await after.invoke('think about it')).text).toBe('A considered answer.');
    expect(server.requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    // Commands never reach the model: the one request is the turn's.
    expect(server.requests).toHaveLength(1);
  });

  it('turns thinking off, back to the default, and explains a wrong word', async () => {
    const key = 'telegram:dm:7';
    expect(await command('/think OFF', { sessionKey: key })).toBe('Thinking is now off.');
    expect((await conversations.get(message('/x', { sessionKey: key }))).agent.options.reasoningEffort).toBeUndefined();
    expect(await command('/think', { sessionKey: key })).toBe("Thinking: off (chosen here; /think default for the profile's).");
    expect(await command('/think hard', { sessionKey: key })).toBe("Usage: /think low | medium | high | off, or /think default for the profile's.");
    expect(await command('/think default', { sessionKey: key })).toBe('Thinking follows profile default again: low.');
    expect(await runtime.store.get(thinkingChoiceKey(key))).toBeNull();
    expect((await conversations.get(message('/x', { sessionKey: key }))).agent.options.reasoningEffort).toBe('low');
  });

  it("is an admin's in a group", async () => {
    expect(await command('/think high', { scope: 'group' })).toBe('In a group, /think is for admins only: it changes the conversation for everyone here.');
    expect(await runtime.store.get(thinkingChoiceKey('telegram:group:-100'))).toBeNull();
    expect(await command('/think medium', { scope: 'group', admin: true })).toBe('Thinking is now medium.');
  });

  it('says when the conversation\'s model cannot reason', async () => {
    const key = 'telegram:dm:9';
    await runtime.store.set(modelChoiceKey(key), 'gpt-4.1');
    expect(await command('/think medium', { sessionKey: key })).toBe('Thinking is now medium. gpt-4.1 does not reason, so this applies once the conversation uses a model that does.');
    expect(await command('/think off', { sessionKey: key })).toBe('Thinking is now off.');
  });

  it('reads only the choices it wrote from the store', () => {
    expect(['low', ' Medium ', 'HIGH', 'off'].map(parseThinkingChoice)).toEqual(['low', 'medium', 'high', 'off']);
    expect([undefined, null, 3, 'max', ''].map(parseThinkingChoice)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
