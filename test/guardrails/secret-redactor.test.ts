import { describe, expect, it } from 'vitest';
import { createSecretRedactor, redactSecretPatterns } from '../../src/guardrails/index.ts';
import type { ToolResultContent } from '../../src/llm/types.ts';
import { after, toolCall } from './helpers.ts';

const env = {
  SLACK_BOT_TOKEN: 'plain-looking-value-123',
  DB_PASSWORD: 'hunter22hunter22',
  OPERATOR_REDIS_URL: 'redis://:s3cretpassw0rd@cache.internal:6379',
  SHORT_TOKEN: 'abc1234',
  OPENAI_BASE_URL: 'http://localhost:11434/v1',
  DOCKER_CONFIG: '/home/me/.docker',
  PATH: '/usr/bin:/bin',
  HOME_NAME: 'not-a-secret-value',
};

const text = (value: string): ToolResultContent[] => [{ type: 'text', text: value }];

describe('secret-redactor', () => {
  it('replaces values of secret environment variables of 8 characters or more', async () => {
    const redactor = createSecretRedactor({ env });
    const result = await after(
      redactor,
      toolCall('shell', { command: 'env' }),
      text('SLACK_BOT_TOKEN=plain-looking-value-123\npw hunter22hunter22 again hunter22hunter22\nSHORT_TOKEN=abc1234\nHOME_NAME=not-a-secret-value'),
    );
    expect(result).toEqual({
      action: 'allow',
      content: [
        { type: 'text', text: 'SLACK_BOT_TOKEN=[REDACTED]\npw [REDACTED] again [REDACTED]\nSHORT_TOKEN=abc1234\nHOME_NAME=not-a-secret-value' },
        { type: 'text', text: '\n[3 secrets were redacted from this result as [REDACTED].]' },
      ],
    });
  });

  it('redacts a URL with a password whole and the password on its own; plain locators stay', async () => {
    const redactor = createSecretRedactor({ env });
    const result = await after(
      redactor,
      toolCall('read_file'),
      text('url redis://:s3cretpassw0rd@cache.internal:6379 pw s3cretpassw0rd base http://localhost:11434/v1 cfg /home/me/.docker'),
    );
    expect(result.content?.[0]).toEqual({ type: 'text', text: 'url [REDACTED] pw [REDACTED] base http://localhost:11434/v1 cfg /home/me/.docker' });
  });

  it('replaces credential shapes even when they are not in the environment', async () => {
    const redactor = createSecretRedactor({ env: {} });
    const anthropic = `sk-ant-api03-${'a1B2'.repeat(10)}`;
    const github = `ghp_${'x9'.repeat(18)}`;
    const aws = 'AKIAIOSFODNN7EXAMPLE';
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----';
    const result = await after(
      redactor,
      toolCall('shell'),
      text(`key ${anthropic}\nAuthorization: Bearer abcdefghijklmnop1234.xyz\n${github} ${aws}\n${pem}\npostgres://app:pa55word@db/app`),
    );
    expect(result.content?.[0]).toEqual({
      type: 'text',
      text: 'key [REDACTED]\nAuthorization: Bearer [REDACTED]\n[REDACTED] [REDACTED]\n[REDACTED]\npostgres://app:[REDACTED]@db/app',
    });
    expect(result.content?.[1]).toEqual({ type: 'text', text: '\n[6 secrets were redacted from this result as [REDACTED].]' });
  });

  it('leaves ordinary source code, images and clean results alone', async () => {
    const redactor = createSecretRedactor({ env });
    const code = 'interface Config { key: string; token?: string }\nconst apiKey = process.env.API_KEY;\nconst url = `postgres://${user}:${password}@db`;';
    expect(await after(redactor, toolCall('read_file'), text(code))).toEqual({ action: 'allow' });
    const image: ToolResultContent = { type: 'image', data: 'aHVudGVyMjJodW50ZXIyMg==', mediaType: 'image/png' };
    expect(await after(redactor, toolCall('read_file'), [image])).toEqual({ action: 'allow' });
    const mixed = await after(redactor, toolCall('read_file'), [image, ...text('hunter22hunter22')]);
    expect(mixed.content?.[0]).toBe(image);
    expect(mixed.content?.[1]).toEqual({ type: 'text', text: '[REDACTED]' });
    expect(mixed.content?.[2]).toEqual({ type: 'text', text: '\n[A secret was redacted from this result as [REDACTED].]' });
  });

  it('reads process.env by default', async () => {
    process.env.OPERATOR_TEST_SECRET_TOKEN = 'from-process-env-42';
    try {
      const redactor = createSecretRedactor();
      expect((await after(redactor, toolCall('shell'), text('x from-process-env-42'))).content?.[0]).toEqual({ type: 'text', text: 'x [REDACTED]' });
    } finally {
      delete process.env.OPERATOR_TEST_SECRET_TOKEN;
    }
  });
});

describe('redactSecretPatterns', () => {
  it.each([
    [`sk-proj-${'A'.repeat(30)}`],
    [`github_pat_${'1'.repeat(30)}`],
    [`glpat-${'b'.repeat(20)}`],
    [`xoxb-1234567890-abcdefghij`],
    [`xapp-1-A0123456789-abc`],
    [`AIza${'c'.repeat(35)}`],
    [`123456789:AA${'d'.repeat(33)}`],
    [`sk_live_${'e'.repeat(24)}`],
    [`npm_${'f'.repeat(36)}`],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ])('redacts %s', (secret) => {
    expect(redactSecretPatterns(`before ${secret} after`)).toEqual({ text: 'before [REDACTED] after', count: 1 });
  });

  it.each(['sk-short', 'task-manager-component', 'AKIA-not-a-key', 'Bearer token', 'https://example.com/path', 'key=value token: abc'])(
    'leaves %s alone',
    (text) => {
      expect(redactSecretPatterns(text)).toEqual({ text, count: 0 });
    },
  );
});
