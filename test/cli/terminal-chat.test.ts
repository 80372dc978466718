import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';

let server: FakeModelServer;
let home: string;
let child: ChildProcessWithoutNullStreams | undefined;

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  server.reset();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Starts `operator chat` against the fake model server; collects stdout. */
function startChat(args: string[] = [], existingHome?: string) {
  home = existingHome ?? mkdtempSync(join(tmpdir(), 'operator-home-'));
  const proc = spawn(process.execPath, ['bin/operator.js', 'chat', ...args], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      HOME: home,
      OPERATOR_HOME: home,
      ANTHROPIC_API_KEY: 'sk-ant-test-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    },
  });
  child = proc;
  let output = '';
  let errors = '';
  proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    exited,
    output: () => output,
    errors: () => errors,
    send: (line: string) => proc.stdin.write(`${line}\n`),
    async waitFor(text: string | RegExp, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(typeof text === 'string' ? output.includes(text) : text.test(output))) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; output so far:\n${output}\nstderr:\n${errors}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

describe('operator chat', () => {
  it('streams answers, shows tool calls on one line, reports status and resumes the session', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { text: 'Here is the listing.', usage: { input: 1200, output: 30, cacheRead: 800 } },
    );
    const chat = startChat();
    chat.send('what is here?');
    await chat.waitFor('Here is the listing.');
    expect(chat.output()).toContain('> list_dir .');
    chat.send('/status');
    await chat.waitFor('context');
    expect(chat.output()).toMatch(/model\s+claude-sonnet-4-6/);
    expect(chat.output()).toMatch(/cache read/);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);

    // A second run with the same home continues the same session.
    server.enqueue({ text: 'I remember.' });
    const again = startChat([], home);
    again.send('do you remember?');
    await again.waitFor('I remember.');
    again.send('/exit');
    await again.exited;
    const last = server.requests.at(-1)!.body.messages;
    expect(JSON.stringify(last)).toContain('what is here?');
  });

  it('compacts on /compact and starts afresh on /new', async () => {
    server.enqueue({ text: 'first answer' }, { text: 'second answer' }, { text: 'SUMMARY OF THE CHAT' }, { text: 'fresh answer' });
    const chat = startChat();
    chat.send('/compact');
    await chat.waitFor('(nothing to compact yet)');
    chat.send('first question');
    await chat.waitFor('first answer');
    chat.send('second question');
    await chat.waitFor('second answer');
    chat.send('/compact');
    await chat.waitFor('(compacted');
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('first question');
    chat.send('/new');
    await chat.waitFor('(new session');
    chat.send('hello again');
    await chat.waitFor('fresh answer');
    const messages = server.requests.at(-1)!.body.messages;
    expect(messages).toHaveLength(1);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('aborts a turn on Ctrl+C and exits on the second', async () => {
    server.enqueue({ text: 'a very slow answer that will not finish', chunkSize: 2, delayMs: 200 });
    const chat = startChat();
    chat.send('tell me slowly');
    await chat.waitFor(/a v/);
    chat.proc.kill('SIGINT');
    await chat.waitFor('(aborted');
    chat.proc.kill('SIGINT');
    expect(await chat.exited).toBe(130);
  });

  it('says which variables to set when no model is configured', async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    const proc = spawn(process.execPath, ['bin/operator.js', 'chat'], { env: { PATH: process.env.PATH, HOME: home, OPERATOR_HOME: home } });
    child = proc;
    let errors = '';
    proc.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise((resolve) => proc.on('exit', resolve));
    expect(code).toBe(1);
    expect(errors).toContain('ANTHROPIC_API_KEY');
    expect(errors).toContain('OPENAI_API_KEY');
  });

  it('loads extensions from OPERATOR_HOME/extensions and reports broken ones without stopping', async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    mkdirSync(join(home, 'extensions'));
    writeFileSync(join(home, 'extensions', 'broken.mjs'), 'export default 42;\n');
    writeFileSync(
      join(home, 'extensions', 'greeter.mjs'),
      "export default (api) => api.on('before_agent_start', (event) => ({ systemPrompt: event.systemPrompt + '\\nALWAYS GREET IN FRENCH' }));\n",
    );
    server.enqueue({ text: 'Bonjour !' });
    const chat = startChat([], home);
    chat.send('hello');
    await chat.waitFor('Bonjour !');
    expect(chat.errors()).toMatch(/broken\.mjs: .*no default-exported extension function/);
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('ALWAYS GREET IN FRENCH');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('asks before a guarded tool call and runs it only when the person says yes', async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    mkdirSync(join(home, 'guardrails'));
    writeFileSync(join(home, 'guardrails', 'careful-shell.yaml'), "rules:\n  - tool: shell\n    decision: ask\n    reason: shell commands need a yes\n");
    server.enqueue(
      { toolCalls: [{ name: 'shell', arguments: { command: 'echo approved-run' } }] },
      { text: 'Ran it.' },
      { toolCalls: [{ name: 'shell', arguments: { command: 'echo denied-run' } }] },
      { text: 'Did not run it.' },
    );
    const chat = startChat([], home);
    chat.send('run the thing');
    await chat.waitFor('allow shell echo approved-run? [y/N]');
    expect(chat.output()).toContain('careful-shell: shell commands need a yes');
    chat.send('y');
    await chat.waitFor('Ran it.');
    expect(JSON.stringify(server.requests[1]!.body.messages.at(-1))).toContain('approved-run');
    chat.send('run the other thing');
    await chat.waitFor('allow shell echo denied-run? [y/N]');
    chat.send('no');
    await chat.waitFor('Did not run it.');
    expect(JSON.stringify(server.requests[3]!.body.messages.at(-1))).toContain('not approved');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('switches profile with /profile and re-reads resources with /reload', async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-home-'));
    mkdirSync(join(home, 'profiles', 'pirate'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'pirate', 'SOUL.md'), 'You are a pirate assistant.\n');
    server.enqueue({ text: 'Arr.' }, { text: 'Still arr.' });
    const chat = startChat([], home);
    chat.send('/profile');
    await chat.waitFor('profile: default');
    chat.send('/profile nobody');
    await chat.waitFor('Profile "nobody" not found');
    chat.send('/profile pirate');
    await chat.waitFor('(profile pirate');
    chat.send('ahoy');
    await chat.waitFor('Arr.');
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('You are a pirate assistant.');
    mkdirSync(join(home, 'profiles', 'pirate', 'skills', 'treasure'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'pirate', 'skills', 'treasure', 'SKILL.md'), '---\nname: treasure\ndescription: Find treasure\n---\nDig.\n');
    chat.send('/reload');
    await chat.waitFor('changed skills: +treasure');
    chat.send('where is it?');
    await chat.waitFor('Still arr.');
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('<name>treasure</name>');
    chat.send('/status');
    await chat.waitFor('profile  pirate');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
    // The choice is remembered for the next start.
    const again = startChat([], home);
    again.send('/profile');
    await again.waitFor('profile: pirate');
    again.send('/exit');
    await again.exited;
  });

  it('prints help', async () => {
    const proc = spawn(process.execPath, ['bin/operator.js', '--help']);
    child = proc;
    let output = '';
    proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise((resolve) => proc.on('exit', resolve))).toBe(0);
    expect(output).toContain('operator <command>');
    expect(output).toContain('chat');
  });
});

