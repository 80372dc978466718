import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderConfigJsonSchema } from '../../src/gateway/config/index.ts';
import { runOperator } from '../helpers/operator-process.ts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-config-cli-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('operator config', () => {
  it('check: prints a summary of a valid configuration, never a secret', async () => {
    writeFileSync(
      join(home, 'operator.json'),
      JSON.stringify({ admins: ['telegram:5'], groups: { 'telegram:-100': { requireMention: false } }, telegram: { webhookUrl: 'https://bot.example.com/hook', webhookSecret: 'sekrit_value_0123456789' } }),
    );
    const result = await runOperator(['config', 'check'], { OPERATOR_HOME: home, PORT: '9100', TELEGRAM_BOT_TOKEN: '123:token-value' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Configuration is valid: ${join(home, 'operator.json')}`);
    expect(result.stdout).toContain('from the environment: PORT');
    expect(result.stdout).toContain('port: 9100');
    expect(result.stdout).toContain('direct messages: telegram pairing, discord pairing, slack open, web open');
    expect(result.stdout).toContain('admins: telegram:5');
    expect(result.stdout).toContain('groups: telegram:-100 (answers without mention)');
    expect(result.stdout).toContain('telegram: token set, webhook https://bot.example.com/hook (secret set)');
    // The spending caps in force: here the defaults.
    expect(result.stdout).toContain("spending caps: gateway none; conversation $5.00 a day for groups (default); person $1.00 a day (default), admins none; job none; pipeline run none; bots' messages in a row 5");
    expect(result.stdout).not.toContain('sekrit_value_0123456789');
    expect(result.stdout).not.toContain('token-value');
  });

  it('check: says which Discord and Slack credentials are set, never their values', async () => {
    const env = { OPERATOR_HOME: home, DISCORD_BOT_TOKEN: 'discord-token-value', SLACK_BOT_TOKEN: 'xoxb-slack-value', SLACK_API_URL: 'http://127.0.0.1:9/api/' };
    const result = await runOperator(['config', 'check'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('discord: token set');
    expect(result.stdout).toContain('slack: bot token set, signing secret not set, app token not set, API http://127.0.0.1:9/api/');
    expect(result.stdout).not.toMatch(/discord-token-value|xoxb-slack-value/);
  });

  it('check: without a file reports the defaults', async () => {
    const result = await runOperator(['config', 'check'], { OPERATOR_HOME: home });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('(no file: defaults)');
    expect(result.stdout).toContain('port: 8787');
  });

  it('check: prints the file, path and reason of a bad configuration and exits 1', async () => {
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ admins: ['telegram:1', 'nobody'], dmPolicy: { discord: 'closed' } }));
    const result = await runOperator(['config', 'check'], { OPERATOR_HOME: home });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        `Invalid configuration in ${join(home, 'operator.json')}:`,
        '  dmPolicy.discord: expected one of "allowlist", "pairing", "open"',
        '  admins[1]: expected "platform:userId" with platform telegram, discord, slack, web, api (e.g. telegram:123)',
        '',
      ].join('\n'),
    );
  });

  it('check: reports bad JSON with its line and column', async () => {
    writeFileSync(join(home, 'operator.json'), '{\n  "port": 80,\n}\n');
    const result = await runOperator(['config', 'check'], { OPERATOR_HOME: home });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`Invalid JSON in ${join(home, 'operator.json')} at line 3, column 1: trailing comma before "}"\n`);
  });

  it('schema: prints the JSON Schema', async () => {
    const result = await runOperator(['config', 'schema'], { OPERATOR_HOME: home });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(renderConfigJsonSchema());
  });

  it('refuses an unknown subcommand with the usage', async () => {
    const result = await runOperator(['config', 'validate'], { OPERATOR_HOME: home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: operator config check | schema');
  });
});
