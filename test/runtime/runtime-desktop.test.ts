/**
 * The runtime offers the desktop tool only where operator.json turns it on and there is a display
 * (the profile's, or the gateway's DISPLAY): absent, not broken, otherwise. Each conversation gets
 * its own view of the one display.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BrowserSession } from '../../src/browser/browser-session.ts';
import { DesktopSession } from '../../src/desktop/desktop-session.ts';
import { defaultDesktopSettings, type DesktopConfig } from '../../src/desktop/desktop-settings.ts';
import { describeDesktopSetup } from '../../src/desktop/desktop-setup.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

describe('runtime desktop', () => {
  let home: string | undefined;
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    removeTempHome(home);
  });

  const start = (desktop: DesktopConfig | undefined, env: Record<string, string> = {}) => {
    home = createTempHome();
    for (const profile of ['ops', 'writer']) {
      mkdirSync(join(home, 'profiles', profile), { recursive: true });
      writeFileSync(join(home, 'profiles', profile, 'SOUL.md'), `You are ${profile}.`);
    }
    runtime = new Runtime({ env: { OPERATOR_HOME: home, HOME: home, ANTHROPIC_API_KEY: 'sk-test', OPERATOR_REVIEW_EVERY: '0', ...env }, requireModel: false, desktop });
    return runtime;
  };
  const toolNames = async (runtime: Runtime, profile: string, key = `telegram:dm:${profile}`) =>
    (await runtime.createAgent({ sessionKey: key, profile })).agent.tools.map((tool) => tool.name);

  it('is off by default, even with a display', async () => {
    const runtime = start(undefined, { DISPLAY: ':5' });
    expect(await toolNames(runtime, 'default')).not.toContain('desktop');
    const { agent } = await runtime.createAgent({ sessionKey: 'telegram:dm:1', profile: 'default' });
    expect(agent.options.surfaces!.some((surface) => surface instanceof DesktopSession)).toBe(false);
  });

  it('turned on, is offered with the display of the settings or of DISPLAY, per profile', async () => {
    const runtime = start({ base: { ...defaultDesktopSettings, enabled: true }, profiles: { ops: { display: ':7', useScreenshot: false }, writer: { enabled: false } } }, { DISPLAY: ':5', XAUTHORITY: '/home/me/.Xauthority' });
    const { agent: one } = await runtime.createAgent({ sessionKey: 'telegram:dm:1', profile: 'default' });
    const { agent: ops } = await runtime.createAgent({ sessionKey: 'telegram:dm:2', profile: 'ops' });
    expect(one.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['browser', 'desktop']));
    const desktopOf = (surfaces: readonly unknown[] | undefined) => surfaces!.find((surface) => surface instanceof DesktopSession) as DesktopSession;
    expect(one.options.surfaces!.some((surface) => surface instanceof BrowserSession)).toBe(true);
    expect(desktopOf(one.options.surfaces).display).toEqual({ name: ':5', xauthority: '/home/me/.Xauthority' });
    expect(desktopOf(ops.options.surfaces).display.name).toBe(':7');
    expect(desktopOf(ops.options.surfaces).settings.useScreenshot).toBe(false);
    expect(desktopOf(one.options.surfaces)).not.toBe(desktopOf(ops.options.surfaces));
    expect(await toolNames(runtime, 'writer')).not.toContain('desktop');
  });

  it('turned on without a display, is absent (not offered), and the start-up line says why', async () => {
    const settings = { ...defaultDesktopSettings, enabled: true };
    const runtime = start({ base: settings, profiles: {} });
    expect(await toolNames(runtime, 'default')).not.toContain('desktop');
    expect(describeDesktopSetup(settings, {})).toBe('enabled, but there is no display: set DISPLAY or desktop.display (the desktop tool is not offered)');
    expect(describeDesktopSetup(defaultDesktopSettings, { DISPLAY: ':0' })).toBe('off (turn it on with desktop.enabled in operator.json)');
    expect(describeDesktopSetup({ ...settings, display: ':3' }, {})).toMatch(/^display :3/);
  });
});
