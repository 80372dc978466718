/** The runtime gives each conversation's agent its own browser, per its profile's settings. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BrowserSession } from '../../src/browser/browser-session.ts';
import { defaultBrowserSettings } from '../../src/browser/browser-settings.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

describe('runtime browser', () => {
  let home: string | undefined;
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    removeTempHome(home);
  });

  const start = () => {
    home = createTempHome();
    mkdirSync(join(home, 'profiles', 'quiet'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'quiet', 'SOUL.md'), 'You are quiet.');
    mkdirSync(join(home, 'profiles', 'looker'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'looker', 'SOUL.md'), 'You look at pages.');
    runtime = new Runtime({
      env: { OPERATOR_HOME: home, HOME: home, ANTHROPIC_API_KEY: 'sk-test', OPERATOR_REVIEW_EVERY: '0' },
      requireModel: false,
      browser: { base: { ...defaultBrowserSettings, allowPrivateNetwork: false }, profiles: { quiet: { enabled: false }, looker: { useScreenshot: true } } },
    });
    return runtime;
  };

  it('offers the browser tool with a browser of the conversation, settings per profile; a profile may turn it off', async () => {
    const runtime = start();
    const { agent: one } = await runtime.createAgent({ sessionKey: 'telegram:dm:1', profile: 'default' });
    const { agent: two } = await runtime.createAgent({ sessionKey: 'telegram:dm:2', profile: 'looker' });
    const { agent: quiet } = await runtime.createAgent({ sessionKey: 'telegram:dm:3', profile: 'quiet' });
    expect(one.tools.map((tool) => tool.name)).toContain('browser');
    const [first] = one.options.surfaces!;
    const [second] = two.options.surfaces!;
    expect(first).toBeInstanceOf(BrowserSession);
    expect(first).not.toBe(second);
    expect((first as BrowserSession).settings.useScreenshot).toBe(false);
    expect((second as BrowserSession).settings.useScreenshot).toBe(true);
    expect((first as BrowserSession).downloads).toBe(join(home!, 'profiles', 'default', 'temp', 'telegram%3Adm%3A1', 'downloads'));
    expect(quiet.tools.map((tool) => tool.name)).not.toContain('browser');
    // Reading pages needs no chromium: web_fetch stays, in the same tool group as the browser.
    const webFetch = quiet.tools.find((tool) => tool.name === 'web_fetch');
    expect(webFetch?.machine).toBe('browser');
    expect(one.tools.map((tool) => tool.name)).toContain('web_fetch');
    expect(quiet.options.surfaces).toBeUndefined();
    // A second agent of the same conversation (after an idle drop) drives the same browser.
    const { agent: again } = await runtime.createAgent({ sessionKey: 'telegram:dm:1', profile: 'default' });
    expect(again.options.surfaces![0]).toBe(first);
  });
});
