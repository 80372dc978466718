import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProfilePrompt } from '../../src/cli/profile-prompt.ts';
import { ConfigurationError } from '../../src/core/errors.ts';

const context = { channel: undefined, sessionId: 's-1', cwd: '/work', date: '2026-11-22', toolNames: [] };
let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe('createProfilePrompt', () => {
  it('uses the built-in default persona, with the footer last', async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    const prompt = await createProfilePrompt(undefined, { OPERATOR_HOME: home })(context);
    expect(prompt.startsWith('You are operator')).toBe(true);
    expect(prompt).toContain('Current date: 2026-11-22');
    expect(prompt).toContain('Session ID: s-1');
    expect(prompt).toContain(`Profile directory: ${join(home, 'profiles', 'default')}`);
  });

  it("prefers the person's SOUL.md in OPERATOR_HOME over the shipped one", async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    mkdirSync(join(home, 'profiles', 'pirate'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'pirate', 'SOUL.md'), 'You are a pirate.\n');
    const prompt = await createProfilePrompt('pirate', { OPERATOR_HOME: home })(context);
    expect(prompt.startsWith('You are a pirate.')).toBe(true);
  });

  it('refuses unknown profiles and unsafe names with a clear error', () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    expect(() => createProfilePrompt('nobody', { OPERATOR_HOME: home })).toThrow(ConfigurationError);
    expect(() => createProfilePrompt('nobody', { OPERATOR_HOME: home })).toThrow(/not found/);
    expect(() => createProfilePrompt('../etc', { OPERATOR_HOME: home })).toThrow(/Invalid profile name/);
  });
});
