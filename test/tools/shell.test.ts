import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/tools/builtin/builtin-tools.ts';
import { createShellTool } from '../../src/tools/builtin/shell.ts';
import { toToolDefinition } from '../../src/tools/tool.ts';
import { callTool, goneWithin, isRunning, makeTempDir, textOf } from './tool-harness.ts';

const shell = createShellTool();

/** Resolves once the streamed output contains `marker`; the collected chunks are in `chunks`. */
function outputWatcher(marker: string) {
  const chunks: string[] = [];
  let seen: () => void = () => {};
  const appeared = new Promise<void>((resolve) => (seen = resolve));
  const onOutput = (text: string) => {
    chunks.push(text);
    if (chunks.join('').includes(marker)) seen();
  };
  return { chunks, appeared, onOutput };
}

async function readPid(directory: string, name: string): Promise<number> {
  return Number((await readFile(path.join(directory, name), 'utf8')).trim());
}

describe('shell', () => {
  it('returns stdout and runs in the working directory', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(shell, { command: 'echo hello; pwd' }, { cwd });
    expect(output).toEqual({ content: `hello\n${cwd}`, isError: false });
  });

  it('adds stderr after STDERR:', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(shell, { command: 'echo out; echo err >&2' }, { cwd });
    expect(output).toEqual({ content: 'out\nSTDERR:\nerr', isError: false });
  });

  it('reports a non-zero exit code as an error', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(shell, { command: 'echo failing >&2; exit 3' }, { cwd });
    expect(output).toEqual({ content: 'STDERR:\nfailing\n[Exit code: 3]', isError: true });
  });

  it('reports a command killed by a signal', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(shell, { command: 'kill -9 $$' }, { cwd });
    expect(output).toEqual({ content: '[Command was killed by SIGKILL]', isError: true });
  });

  it('says so when there is no output', async () => {
    const cwd = await makeTempDir();
    expect(await callTool(shell, { command: 'true' }, { cwd })).toEqual({ content: '(no output)', isError: false });
  });

  it('streams output as it arrives', async () => {
    const cwd = await makeTempDir();
    const watcher = outputWatcher('two');
    const output = await callTool(shell, { command: 'echo one; echo two >&2' }, { cwd, onOutput: watcher.onOutput });
    await watcher.appeared;
    expect(watcher.chunks.join('')).toContain('one\n');
    expect(textOf(output)).toBe('one\nSTDERR:\ntwo');
  });

  it('on timeout kills the whole process group, background jobs included', async () => {
    const cwd = await makeTempDir();
    const watcher = outputWatcher('started');
    const pending = callTool(
      shell,
      { command: 'sleep 30 & echo $! > background.pid; echo $$ > shell.pid; echo started; sleep 30', timeout_ms: 500 },
      { cwd, onOutput: watcher.onOutput },
    );
    await watcher.appeared;
    const background = await readPid(cwd, 'background.pid');
    const leader = await readPid(cwd, 'shell.pid');
    expect(await isRunning(background)).toBe(true);

    const output = await pending;
    expect(output).toEqual({ content: 'started\n[Command timed out after 500ms]', isError: true });
    expect(await goneWithin(background)).toBe(true);
    expect(await goneWithin(leader)).toBe(true);
  });

  it('follows SIGTERM with SIGKILL for processes that ignore it', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(
      shell,
      { command: "trap '' TERM; sleep 30 & echo $! > background.pid; wait", timeout_ms: 300 },
      { cwd },
    );
    expect(output).toEqual({ content: '[Command timed out after 300ms]', isError: true });
    expect(await goneWithin(await readPid(cwd, 'background.pid'))).toBe(true);
  });

  it("takes its default timeout from the provider's tool profile, and names it to the model", async () => {
    const cwd = await makeTempDir();
    const profiled = createBuiltinTools({ profile: { provider: 'test', shellTimeoutMs: 250, hints: {} } }).find((tool) => tool.name === 'shell')!;
    expect(toToolDefinition(profiled).parameters).toMatchObject({ properties: { timeout_ms: { description: 'Timeout in milliseconds. Default: 250.' } } });
    const output = await callTool(profiled, { command: 'sleep 30' }, { cwd });
    expect(output).toEqual({ content: '[Command timed out after 250ms]', isError: true });
  });

  it('caps the timeout the model asks for', async () => {
    const cwd = await makeTempDir();
    const capped = createShellTool({ maxTimeoutMs: 200 });
    const output = await callTool(capped, { command: 'sleep 30', timeout_ms: 100_000 }, { cwd });
    expect(output).toEqual({ content: '[Command timed out after 200ms]', isError: true });
  });

  it('on abort kills the process group and rejects with the abort reason', async () => {
    const cwd = await makeTempDir();
    const controller = new AbortController();
    const watcher = outputWatcher('started');
    const pending = callTool(
      shell,
      { command: 'sleep 30 & echo $! > background.pid; echo started; wait', timeout_ms: 60_000 },
      { cwd, signal: controller.signal, onOutput: watcher.onOutput },
    );
    await watcher.appeared;
    const background = await readPid(cwd, 'background.pid');
    expect(await isRunning(background)).toBe(true);
    controller.abort(new Error('turn aborted'));
    await expect(pending).rejects.toThrow('turn aborted');
    expect(await goneWithin(background)).toBe(true);
  });

  it('does not start a command when already aborted', async () => {
    const cwd = await makeTempDir();
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(callTool(shell, { command: 'touch ran' }, { cwd, signal: controller.signal })).rejects.toThrow('too late');
    await expect(readFile(path.join(cwd, 'ran'))).rejects.toThrow();
  });

  it('keeps only the start and end of huge output', async () => {
    const cwd = await makeTempDir();
    const output = textOf(await callTool(shell, { command: "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo end" }, { cwd }));
    expect(output.length).toBeLessThan(1_100_000);
    expect(output).toMatch(/^a+\n\[\.\.\. \d+ characters of output omitted \.\.\.\]\na+\nend$/);
  });

  it('fails plainly when the working directory is missing', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(shell, { command: 'pwd' }, { cwd: path.join(cwd, 'missing') });
    expect(output).toEqual({ content: `Error: working directory not found: ${path.join(cwd, 'missing')}`, isError: true });
  });

  it('passes only the allowlisted environment: no secrets, nothing else', async () => {
    const cwd = await makeTempDir();
    const secrets = {
      OPENAI_API_KEY: 'sk-openai-secret',
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      ANTHROPIC_AUTH_TOKEN: 'ant-auth-secret',
      TELEGRAM_BOT_TOKEN: '123:telegram-secret',
      TELEGRAM_WEBHOOK_SECRET: 'webhook-secret',
      DISCORD_BOT_TOKEN: 'discord-secret',
      SLACK_BOT_TOKEN: 'xoxb-slack-secret',
      SLACK_SIGNING_SECRET: 'slack-signing-secret',
      SLACK_APP_TOKEN: 'xapp-slack-secret',
      OPERATOR_REDIS_URL: 'redis://redis-host:6379',
      GITHUB_TOKEN: 'ghp-secret',
      GH_TOKEN: 'gh-secret',
      NPM_TOKEN: 'npm-secret',
      AWS_ACCESS_KEY_ID: 'AKIA-secret',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      DATABASE_URL: 'postgres://db-host/app',
      ANALYTICS_DATABASE_URL: 'postgres://analytics-host/app',
      DOCKER_AUTH_CONFIG: 'docker-secret',
      STRIPE_SECRET: 'stripe-secret',
      SMTP_PASSWORD: 'smtp-secret',
      SERVICE_KEY: 'service-key-secret',
      CACHE_URL: 'redis://:url-password-secret@cache-host:6379',
    };
    const tool = createShellTool({ env: { PATH: process.env.PATH, LANG: 'C.UTF-8', HARMLESS_SETTING: 'not-on-the-allowlist', ...secrets } });
    const output = textOf(await callTool(tool, { command: 'env' }, { cwd }));
    expect(output).toContain('LANG=C.UTF-8');
    expect(output).toContain('PATH=');
    expect(output).not.toContain('HARMLESS_SETTING');
    for (const [name, value] of Object.entries(secrets)) {
      expect(output).not.toContain(`${name}=`);
      expect(output).not.toContain(value);
    }
  });
});
