/** The runtime gives each agent its reasoning effort: the conversation's choice, else its profile's default. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { useRuntimeFixture } from './runtime-fixture.ts';

const fixture = useRuntimeFixture();

function start(): Runtime {
  mkdirSync(join(fixture.home(), 'profiles', 'deep'), { recursive: true });
  writeFileSync(join(fixture.home(), 'profiles', 'deep', 'SOUL.md'), 'You think hard.');
  return fixture.start({ reasoningEfforts: { deep: 'high' } });
}

describe('runtime reasoning effort', () => {
  it("uses the profile's default, a conversation's own choice over it, and none for off", async () => {
    const runtime = start();
    const effort = async (profile: string, reasoningEffort?: 'low' | 'off') =>
      (await runtime.createAgent({ sessionKey: `test:${profile}:${reasoningEffort ?? 'none'}`, profile, reasoningEffort })).agent.options.reasoningEffort;
    expect(await effort('default')).toBeUndefined();
    expect(await effort('deep')).toBe('high');
    expect(await effort('deep', 'low')).toBe('low');
    expect(await effort('deep', 'off')).toBeUndefined();
    expect(await effort('default', 'low')).toBe('low');
    expect(runtime.reasoningEffortOf('deep')).toBe('high');
    expect(runtime.reasoningEffortOf('toString')).toBeUndefined();
  });

  it("sends the effort with the agent's model calls", async () => {
    const runtime = start();
    const { agent } = await runtime.createAgent({ sessionKey: 'test:deep', profile: 'deep' });
    fixture.server.enqueue({ thinking: { text: 'Hmm.', signature: 'sig' }, text: 'Thought about it.' });
    expect((await agent.invoke('think')).text).toBe('Thought about it.');
    expect(fixture.server.requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    const { agent: plain } = await runtime.createAgent({ sessionKey: 'test:plain', profile: 'deep', reasoningEffort: 'off' });
    await plain.invoke('no thinking');
    expect(fixture.server.requests[1]?.body.thinking).toBeUndefined();
  });
});
