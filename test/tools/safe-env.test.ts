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
    expect(safeEnv({ [name]: 'value' })).toEqual({});
  });

  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'SHELL', 'TMPDIR', 'NODE_ENV', 'TOKENIZERS_PARALLELISM', 'KEYBOARD_LAYOUT', 'API_BASE_URL'])(
    'keeps %s',
    (name) => {
      expect(isSecretEnv(name, 'https://example.test/v1')).toBe(false);
    },
  );

  it('removes variables whose value is a URL with a password', () => {
    expect(safeEnv({ CACHE_URL: 'redis://:hunter2@cache:6379', QUEUE_URL: 'amqp://user:pw@mq/vhost', PLAIN_URL: 'https://host/x' })).toEqual({
      PLAIN_URL: 'https://host/x',
    });
  });

  it('drops unset entries and does not change its input', () => {
    const env = { PATH: '/bin', EMPTY: undefined, GITHUB_TOKEN: 'ghp' };
    expect(safeEnv(env)).toEqual({ PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin', EMPTY: undefined, GITHUB_TOKEN: 'ghp' });
  });
});
