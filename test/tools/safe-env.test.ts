import { describe, expect, it } from 'vitest';
import { isSecretEnv, safeEnv } from '../../src/tools/safe-env.ts';

describe('safeEnv', () => {
  it.each([
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'TELEGRAM_BOT_TOKEN',
    'TELEGRAM_WEBHOOK_SECRET',
    'DISCORD_BOT_TOKEN',
    'SLACK_BOT_TOKEN',
    'SLACK_SIGNING_SECRET',
    'SLACK_APP_TOKEN',
    'OPERATOR_REDIS_URL',
    'GOOGLE_API_KEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'NPM_TOKEN',
    'npm_config__authToken',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'DATABASE_URL',
    'ANALYTICS_DATABASE_URL',
    'DOCKER_PASSWORD',
    'DOCKER_CONFIG',
    'CLIENT_SECRET',
    'DB_PASSWORD',
    'STRIPE_SECRET_KEY',
    'SIGNING_KEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
  ])('removes %s', (name) => {
    expect(isSecretEnv(name, 'value')).toBe(true);
    expect(safeEnv({ [name]: 'value' }, [name])).not.toHaveProperty(name);
  });

  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'SHELL', 'TMPDIR', 'NODE_ENV', 'TOKENIZERS_PARALLELISM', 'KEYBOARD_LAYOUT', 'API_BASE_URL'])(
    'keeps %s',
    (name) => {
      expect(isSecretEnv(name, 'https://example.test/v1')).toBe(false);
    },
  );

  it('removes variables whose value is a URL with a password, even when listed', () => {
    const env = { PATH: '/bin', CACHE_URL: 'redis://:hunter2@cache:6379', QUEUE_URL: 'amqp://user:pw@mq/vhost', PLAIN_URL: 'https://host/x' };
    expect(safeEnv(env, ['CACHE_URL', 'QUEUE_URL', 'PLAIN_URL'])).toEqual({ PATH: '/bin', PLAIN_URL: 'https://host/x' });
  });

  it('passes only the allowlist and the names given', () => {
    const env = {
      PATH: '/bin',
      LANG: 'C.UTF-8',
      LANGUAGE: 'en',
      LC_ALL: 'C',
      LC_CTYPE: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      COLORTERM: 'truecolor',
      NO_COLOR: '1',
      HOME: '/root',
      USER: 'root',
      NODE_OPTIONS: '--require x',
      OPERATOR_HOME: '/root/.operator',
      BUILD_MODE: 'ci',
    };
    const { HOME: _home, USER: _user, NODE_OPTIONS: _options, OPERATOR_HOME: _operatorHome, BUILD_MODE: _buildMode, ...allowlisted } = env;
    expect(safeEnv(env)).toEqual(allowlisted);
    expect(safeEnv(env, ['BUILD_MODE'])).toEqual({ ...allowlisted, BUILD_MODE: 'ci' });
  });

  it('gives a default PATH when there is none', () => {
    expect(safeEnv({})).toEqual({ PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' });
  });

  it('drops unset entries and does not change its input', () => {
    const env = { PATH: '/bin', LANG: undefined, GITHUB_TOKEN: 'ghp' };
    expect(safeEnv(env, ['GITHUB_TOKEN'])).toEqual({ PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin', LANG: undefined, GITHUB_TOKEN: 'ghp' });
  });
});
