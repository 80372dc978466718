/**
 * `profileSettings.<profile>.modelRequest` from operator.json to the wire: the settings a profile
 * gives reach every model call of its conversations (the bodies the real SDKs sent to the fake
 * server), and what the file cannot say is refused with the setting named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { loadConfig, requestOptionsByProfile } from '../../src/gateway/config/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { useRuntimeFixture } from './runtime-fixture.ts';

const fixture = useRuntimeFixture();

function configWith(profileSettings: unknown) {
  writeFileSync(join(fixture.home(), 'operator.json'), JSON.stringify({ profileSettings }));
  return loadConfig({ OPERATOR_HOME: fixture.home() }).config;
}

function start(profileSettings: unknown): Runtime {
  return fixture.start({ requestOptions: requestOptionsByProfile(configWith(profileSettings)) });
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
