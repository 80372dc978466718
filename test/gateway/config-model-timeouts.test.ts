/**
 * The settings of a provider that hangs: `modelTimeouts` (for every provider and per provider),
 * `maxConcurrentTurnsPerProvider` and `turnTimeoutSeconds` in operator.json, and how the model
 * timeouts reach the providers (environment variables, the environment winning).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, modelProviders, modelTimeoutEnv } from '../../src/gateway/config/index.ts';
import { providerRegistry } from '../../src/llm/model-client.ts';
import { timeoutsFromEnv } from '../../src/llm/providers/idle-watch.ts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-config-timeouts-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function withFile(content: unknown) {
  writeFileSync(join(home, 'operator.json'), JSON.stringify(content));
  return loadConfig({ OPERATOR_HOME: home });
}

function problemOf(content: unknown): string {
  try {
    withFile(content);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration problem');
}

describe('operator.json: a provider that hangs', () => {
  it('reads limits for every provider, a provider its own, the per-provider turn share and the turn deadline', () => {
    const { config } = withFile({
      maxConcurrentTurns: 8,
      maxConcurrentTurnsPerProvider: 6,
      turnTimeoutSeconds: 300,
      modelTimeouts: { firstByteSeconds: 30, idleSeconds: 20, openai: { firstByteSeconds: 240 }, anthropic: { idleSeconds: 15.5 } },
    });
    expect(config.maxConcurrentTurnsPerProvider).toBe(6);
    expect(config.turnTimeoutSeconds).toBe(300);
    expect(config.modelTimeouts).toEqual({ firstByteSeconds: 30, idleSeconds: 20, openai: { firstByteSeconds: 240 }, anthropic: { idleSeconds: 15.5 } });
  });

  it('leaves the per-provider share and the limits unset by default (the queue and the providers choose)', () => {
    const { config } = withFile({});
    expect(config.maxConcurrentTurnsPerProvider).toBeUndefined();
    expect(config.modelTimeouts).toEqual({});
    expect(config.turnTimeoutSeconds).toBe(600);
  });

  it('refuses an unknown provider, a limit that is not positive and a share below one, naming the setting', () => {
    expect(problemOf({ modelTimeouts: { mistral: { idleSeconds: 5 } } })).toMatch(/modelTimeouts\.mistral: unknown setting/);
    expect(withFile({ modelTimeouts: { gemini: { idleSeconds: 5 } } }).config.modelTimeouts.gemini).toEqual({ idleSeconds: 5 });
    expect(problemOf({ modelTimeouts: { openai: { firstByteSeconds: 0 } } })).toMatch(/modelTimeouts\.openai\.firstByteSeconds/);
    expect(problemOf({ modelTimeouts: { anthropic: { idle: 5 } } })).toMatch(/modelTimeouts\.anthropic\.idle: unknown setting/);
    expect(problemOf({ maxConcurrentTurnsPerProvider: 0 })).toMatch(/maxConcurrentTurnsPerProvider/);
  });

  it('names every provider operator can talk to', () => {
    expect([...modelProviders].sort()).toEqual(Object.keys(providerRegistry).sort());
  });
});

describe('modelTimeoutEnv', () => {
  it('hands the limits to the providers as variables, which give each provider its own over the common ones', () => {
    const { config } = withFile({ modelTimeouts: { firstByteSeconds: 30, idleSeconds: 20, openai: { firstByteSeconds: 240 } } });
    const variables = modelTimeoutEnv(config.modelTimeouts, {});
    expect(variables).toEqual({
      OPERATOR_MODEL_FIRST_BYTE_SECONDS: '30',
      OPERATOR_MODEL_IDLE_SECONDS: '20',
      OPERATOR_OPENAI_FIRST_BYTE_SECONDS: '240',
    });
    expect(timeoutsFromEnv(variables, 'openai')).toEqual({ firstByteMs: 240_000, idleMs: 20_000 });
    expect(timeoutsFromEnv(variables, 'anthropic')).toEqual({ firstByteMs: 30_000, idleMs: 20_000 });
  });

  it('leaves out what the environment already sets (the environment wins), but not what it leaves empty', () => {
    const variables = modelTimeoutEnv(
      { firstByteSeconds: 30, idleSeconds: 20, anthropic: { firstByteSeconds: 45, idleSeconds: 50 } },
      { OPERATOR_MODEL_IDLE_SECONDS: '90', OPERATOR_ANTHROPIC_FIRST_BYTE_SECONDS: '5', OPERATOR_ANTHROPIC_IDLE_SECONDS: ' ' },
    );
    expect(variables).toEqual({ OPERATOR_MODEL_FIRST_BYTE_SECONDS: '30', OPERATOR_ANTHROPIC_IDLE_SECONDS: '50' });
    expect(modelTimeoutEnv({}, {})).toEqual({});
  });
});
