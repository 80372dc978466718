/**
 * `groupPolicy` in operator.json and `OPERATOR_GROUP_POLICY`: the default (`approval` on every
 * platform), per platform in the file, every platform from the environment, clear errors for
 * anything else (naming the setting, never quoting a value from the environment), and what
 * `operator config check` says is in force.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { loadConfig } from '../../src/gateway/config/index.ts';
import { runOperator } from '../helpers/operator-process.ts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-group-policy-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const withFile = (settings: unknown, env: Record<string, string> = {}) => {
  writeFileSync(join(home, 'operator.json'), JSON.stringify(settings));
  return loadConfig({ OPERATOR_HOME: home, ...env });
};

function failure(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('groupPolicy', () => {
  it('is approval on every platform by default', () => {
    expect(loadConfig({ OPERATOR_HOME: home }).config.groupPolicy).toEqual({ telegram: 'approval', discord: 'approval', slack: 'approval' });
  });

  it('is read per platform from the file, the rest keeping the default', () => {
    expect(withFile({ groupPolicy: { slack: 'open', discord: 'allowlist' } }).config.groupPolicy).toEqual({ telegram: 'approval', discord: 'allowlist', slack: 'open' });
  });

  it('is set for every platform by OPERATOR_GROUP_POLICY, over the file', () => {
    const loaded = withFile({ groupPolicy: { slack: 'open' } }, { OPERATOR_GROUP_POLICY: 'allowlist' });
    expect(loaded.config.groupPolicy).toEqual({ telegram: 'allowlist', discord: 'allowlist', slack: 'allowlist' });
    expect(loaded.environment).toEqual(['OPERATOR_GROUP_POLICY']);
  });

  it('refuses anything else with the setting and the choices', () => {
    expect(failure(() => withFile({ groupPolicy: { telegram: 'closed' } }))).toContain('groupPolicy.telegram: expected one of "approval", "allowlist", "open"');
    expect(failure(() => withFile({ groupPolicy: { web: 'open' } }))).toContain('groupPolicy.web: unknown setting');
    expect(failure(() => withFile({ groupPolicy: 'open' }))).toContain('groupPolicy: expected an object');
    rmSync(join(home, 'operator.json'));
    const fromEnv = failure(() => loadConfig({ OPERATOR_HOME: home, OPERATOR_GROUP_POLICY: 'everyone-please' }));
    expect(fromEnv).toContain('OPERATOR_GROUP_POLICY: expected one of "approval", "allowlist", "open"');
    expect(fromEnv).not.toContain('everyone-please');
  });
});

describe('operator config check: the group policy in force', () => {
  it('says the default in words', async () => {
    const result = await runOperator(['config', 'check'], { OPERATOR_HOME: home });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  groups served: approval (groups an admin added the bot to or approved; elsewhere a mention gets a pairing code), on every platform\n');
  });

  it('names each platform when they differ, and the environment when it set them', async () => {
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ groupPolicy: { telegram: 'open' } }));
    const file = await runOperator(['config', 'check'], { OPERATOR_HOME: home });
    expect(file.stdout).toContain(
      '  groups served: telegram open (every group); discord approval (groups an admin added the bot to or approved; elsewhere a mention gets a pairing code); slack approval (groups an admin added the bot to or approved; elsewhere a mention gets a pairing code)\n',
    );
    const env = await runOperator(['config', 'check'], { OPERATOR_HOME: home, OPERATOR_GROUP_POLICY: 'allowlist' });
    expect(env.stdout).toContain('from the environment: OPERATOR_GROUP_POLICY');
    expect(env.stdout).toContain('  groups served: allowlist (groups an admin added the bot to, approved or listed in allowlists; no codes), on every platform\n');
  });

  it('refuses a bad OPERATOR_GROUP_POLICY with exit code 1, naming it', async () => {
    const result = await runOperator(['config', 'check'], { OPERATOR_HOME: home, OPERATOR_GROUP_POLICY: 'sometimes' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('OPERATOR_GROUP_POLICY: expected one of "approval", "allowlist", "open"');
  });
});
