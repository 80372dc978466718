/**
 * Chromium's environment outside bubblewrap: an allowlist (search path, locale, terminal), the
 * proxy settings unless they carry a password, the display only with a window, and a home of its
 * own; nothing else of the gateway's, whatever its name.
 */
import { describe, expect, it } from 'vitest';
import { browserEnvironment } from '../../src/browser/browser-environment.ts';
import { expectNoSecretIn } from '../helpers/secret-forms.ts';

const gateway = {
  PATH: '/usr/bin:/bin',
  LANG: 'de_DE.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TZ: 'Europe/Berlin',
  HOME: '/root',
  DISPLAY: ':0',
  XAUTHORITY: '/root/.Xauthority',
  https_proxy: 'http://proxy.internal:3128',
  HTTP_PROXY: 'http://ada:proxy-password-5566@proxy.internal:3128',
  NO_PROXY: 'localhost,127.0.0.1',
  ANTHROPIC_API_KEY: 'sk-ant-environment-test-1234',
  TELEGRAM_BOT_TOKEN: '12345:environment-test-token',
  OPERATOR_HOME: '/root/.operator',
  SSH_AUTH_SOCK: '/run/user/0/ssh-agent.sock',
};

describe("chromium's environment", () => {
  it('is the allowlist, the proxies without a password and a home of its own, headless', () => {
    const env = browserEnvironment(gateway, { headed: false, home: '/tmp/operator-browser-x/home' });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      LANG: 'de_DE.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Europe/Berlin',
      https_proxy: 'http://proxy.internal:3128',
      NO_PROXY: 'localhost,127.0.0.1',
      HOME: '/tmp/operator-browser-x/home',
      XDG_CONFIG_HOME: '/tmp/operator-browser-x/home/.config',
      XDG_CACHE_HOME: '/tmp/operator-browser-x/home/.cache',
      XDG_DATA_HOME: '/tmp/operator-browser-x/home/.local/share',
    });
    expectNoSecretIn(Object.entries(env).join('\n'), ['sk-ant-environment-test-1234', '12345:environment-test-token', 'proxy-password-5566'], "chromium's environment");
  });

  it('gets the display only when it has a window', () => {
    const env = browserEnvironment(gateway, { headed: true, home: '/tmp/h' });
    expect(env).toMatchObject({ DISPLAY: ':0', XAUTHORITY: '/root/.Xauthority' });
    expect(env).not.toHaveProperty('SSH_AUTH_SOCK');
    expect(env).not.toHaveProperty('OPERATOR_HOME');
  });
});
