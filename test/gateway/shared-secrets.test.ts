/**
 * Every shared secret is at least 16 characters: `OPERATOR_METRICS_TOKEN`, `TELEGRAM_WEBHOOK_SECRET`
 * (and `telegram.webhookSecret`) and `OPERATOR_WEB_TOKEN` are refused by the configuration every
 * command loads, naming the variable and never the value in any form; unset or empty ones are not
 * looked at. (The control token is made by the gateway, 43 characters; see bearer-gate.test.ts.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config/index.ts';
import { sharedSecretProblem, sharedSecretProblems } from '../../src/gateway/config/shared-secrets.ts';
import { secretForms } from '../helpers/secret-forms.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let home: string;
beforeEach(() => {
  home = createTempHome('operator-shared-secrets-');
});
afterEach(() => removeTempHome(home));

/** The message loadConfig throws with for `env`, or fails. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ OPERATOR_HOME: home, ...env });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('shared secrets', () => {
  it.each([
    ['OPERATOR_METRICS_TOKEN', 'metrics-15chars', 'expected at least 16 characters'],
    ['OPERATOR_WEB_TOKEN', 'webtoken', 'expected at least 16 characters'],
    ['TELEGRAM_WEBHOOK_SECRET', 'hook_Z9q', 'expected 16-256 characters of A-Z, a-z, 0-9, _ and -'],
    ['OPERATOR_METRICS_TOKEN', 'a metrics token with spaces', 'expected printable ASCII without spaces'],
  ])('refuses %s = %j, naming the variable and never the value', (name, value, reason) => {
    const message = refusal({ [name]: value });
    expect(message).toContain('Invalid configuration in the environment');
    expect(message).toContain(`${name}: ${reason}`);
    for (const form of secretForms(value)) expect(message).not.toContain(form);
  });

  it('refuses a short telegram.webhookSecret in operator.json too', () => {
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ telegram: { webhookUrl: 'https://bot.example.com/webhooks/telegram', webhookSecret: 'short_secret' } }));
    const message = refusal({});
    expect(message).toContain('telegram.webhookSecret: expected 16-256 characters');
    expect(message).not.toContain('short_secret');
  });

  it('names every short secret at once, and takes secrets of 16 characters or more', () => {
    const message = refusal({ OPERATOR_METRICS_TOKEN: 'short', OPERATOR_WEB_TOKEN: 'short-too' });
    expect(message.split('\n').filter((line) => line.trim() !== '')).toHaveLength(3);
    const { config } = loadConfig({ OPERATOR_HOME: home, OPERATOR_METRICS_TOKEN: 'sixteen-chars-ok', OPERATOR_WEB_TOKEN: 'a-web-token-of-16', TELEGRAM_WEBHOOK_SECRET: 'webhook_secret_16' });
    expect(config.telegram.webhookSecret).toBe('webhook_secret_16');
  });

  it('leaves unset and empty ones alone (their doors stay shut)', () => {
    expect(sharedSecretProblems({ OPERATOR_METRICS_TOKEN: '', OPERATOR_WEB_TOKEN: '   ' })).toEqual([]);
    expect(() => loadConfig({ OPERATOR_HOME: home, OPERATOR_METRICS_TOKEN: '' })).not.toThrow();
    expect(sharedSecretProblem('x'.repeat(16))).toBeUndefined();
    expect(sharedSecretProblem('x'.repeat(513))).toBe('expected at most 512 characters');
  });
});
