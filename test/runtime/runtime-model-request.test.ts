/**
 * `profileSettings.<profile>.modelRequest` from operator.json to the wire: the settings a profile
 * gives reach every model call of its conversations (the bodies the real SDKs sent to the fake
 * server), and what the file cannot say is refused with the setting named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { loadConfig, personIdProfilesOf, requestOptionsByProfile } from '../../src/gateway/config/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { useRuntimeFixture } from './runtime-fixture.ts';

const fixture = useRuntimeFixture();

function configWith(profileSettings: unknown) {
  writeFileSync(join(fixture.home(), 'operator.json'), JSON.stringify({ profileSettings }));
  return loadConfig({ OPERATOR_HOME: fixture.home() }).config;
}

function start(profileSettings: unknown): Runtime {
  const config = configWith(profileSettings);
  return fixture.start({ requestOptions: requestOptionsByProfile(config), personIdProfiles: personIdProfilesOf(config) });
}

const settings = {
  default: {
    modelRequest: {
      temperature: 0.4,
      topP: 0.9,
      stopSequences: ['<END>'],
      tags: { team: 'support' },
      providerOptions: { openai: { store: true, service_tier: 'flex' }, anthropic: { service_tier: 'standard_only' } },
    },
  },
};

describe('profileSettings.modelRequest', () => {
  it("sends the profile's settings with every call, as each provider takes them", async () => {
    const running = start(settings);
    for (const model of ['claude-sonnet-4-6', 'gpt-4.1']) {
      const { agent } = await running.createAgent({ sessionKey: `test:${model}`, profile: 'default', model });
      fixture.server.enqueue({ text: 'ok' });
      await agent.invoke('hi');
    }
    const [claude, openai] = fixture.server.requests.map((recorded) => recorded.body);
    expect(claude).toMatchObject({ stop_sequences: ['<END>'], service_tier: 'standard_only' });
    expect(claude).not.toHaveProperty('top_p');
    expect(claude).not.toHaveProperty('metadata');
    expect(openai).toMatchObject({ temperature: 0.4, top_p: 0.9, stop: ['<END>'], store: true, service_tier: 'flex', metadata: { team: 'support' } });
  });

  it("leaves another profile's calls alone", async () => {
    const running = start({ quiet: settings.default });
    const { agent } = await running.createAgent({ sessionKey: 'test:other', profile: 'default', model: 'gpt-4.1' });
    fixture.server.enqueue({ text: 'ok' });
    await agent.invoke('hi');
    const body = fixture.server.requests[0]!.body;
    for (const field of ['temperature', 'top_p', 'stop', 'store', 'metadata']) expect(body).not.toHaveProperty(field);
  });

  it('names the turn\'s person to the provider as an opaque id, the same across conversations and restarts, where the profile asks', async () => {
    const profileSettings = { default: { modelRequest: { sendPersonId: true } } };
    const turn = (senderId: string, sessionKey: string) => ({ sessionKey, platform: 'telegram', senderId, admin: false, scheduled: false });
    const ask = async (running: Runtime, sessionKey: string, senderId: string, model = 'claude-sonnet-4-6') => {
      const { agent } = await running.createAgent({ sessionKey, profile: 'default', model });
      fixture.server.enqueue({ text: 'ok' });
      await agent.invoke('hi', { turn: turn(senderId, sessionKey) });
      return fixture.server.requests.at(-1)!.body;
    };
    let running = start(profileSettings);
    const first = (await ask(running, 'telegram:group:-100', '42')).metadata.user_id as string;
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect((await ask(running, 'telegram:dm:42', '42')).metadata.user_id).toBe(first);
    expect((await ask(running, 'telegram:group:-100', '43')).metadata.user_id).not.toBe(first);
    expect((await ask(running, 'telegram:dm:42', '42', 'gpt-4.1')).safety_identifier).toBe(first);
    // A fresh runtime on the same home finds the same key in the store.
    await running.close();
    running = start(profileSettings);
    expect((await ask(running, 'telegram:dm:42', '42')).metadata.user_id).toBe(first);
  });

  it('sends no person id unless the profile asks', async () => {
    const running = start({ default: { modelRequest: { stopSequences: ['x'] } } });
    const { agent } = await running.createAgent({ sessionKey: 'telegram:dm:42', profile: 'default' });
    fixture.server.enqueue({ text: 'ok' });
    await agent.invoke('hi', { turn: { sessionKey: 'telegram:dm:42', platform: 'telegram', senderId: '42', admin: false, scheduled: false } });
    expect(fixture.server.requests[0]!.body).not.toHaveProperty('metadata');
  });

  it.each([
    [{ topP: 1.5 }, 'profileSettings.default.modelRequest.topP: must be at most 1'],
    [{ stopSequences: ['a', 'b', 'c', 'd', 'e'] }, 'profileSettings.default.modelRequest.stopSequences'],
    [{ providerOptions: { openai: { messages: [] } } }, 'profileSettings.default.modelRequest.providerOptions.openai: may not set model, messages, system, tools, stream, stream_options (operator sets them)'],
    [{ providerOptions: { mistral: {} } }, 'profileSettings.default.modelRequest.providerOptions'],
    [{ topK: 3 }, 'profileSettings.default.modelRequest.topK: unknown setting'],
  ])('refuses %j naming the setting', (modelRequest, message) => {
    const failure = (() => {
      try {
        configWith({ default: { modelRequest } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect((failure as Error).message).toContain(message);
  });
});
