import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { spawnOperator } from '../helpers/operator-process.ts';
import type { OperatorProcess } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { startPageServer } from '../browser/page-server.ts';

let server: FakeModelServer;
let home: string | undefined;
/** Every process a test started, killed after it. */
let processes: OperatorProcess[] = [];

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await Promise.all(processes.map((running) => running.kill()));
  processes = [];
  server.reset();
  removeTempHome(home);
  home = undefined;
});

/** Keeps `started` to be killed after the test, whatever happens in it. */
function track(started: OperatorProcess): OperatorProcess {
  processes.push(started);
  return started;
}

/** Starts `operator chat` against the fake model server, in `existingHome` or a new temp home. */
function startChat(args: string[] = [], existingHome?: string): OperatorProcess {
  home = existingHome ?? createTempHome('operator-home-');
  return track(spawnOperator(['chat', ...args], { home, env: fakeAnthropicEnv(server) }));
}

describe('operator chat', () => {
  it('streams answers, shows tool calls on one line, reports status and resumes the session', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { text: 'Here is the listing.', usage: { input: 1200, output: 30, cacheRead: 800 } },
    );
    const chat = startChat();
    chat.send('what is here?');
    await chat.output.waitFor('Here is the listing.');
    expect(chat.output.stdout()).toContain('> list_dir .');
    chat.send('/status');
    await chat.output.waitFor('context');
    expect(chat.output.stdout()).toMatch(/model\s+claude-sonnet-4-6/);
    expect(chat.output.stdout()).toMatch(/cache read/);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);

    // A second run with the same home continues the same session.
    server.enqueue({ text: 'I remember.' });
    const again = startChat([], home);
    again.send('do you remember?');
    await again.output.waitFor('I remember.');
    again.send('/exit');
    await again.exited;
    const last = server.requests.at(-1)!.body.messages;
    expect(JSON.stringify(last)).toContain('what is here?');
  });

  it('compacts on /compact and starts afresh on /new', async () => {
    // Before the summary, the memory flush gets its one chance to save durable facts.
    server.enqueue({ text: 'first answer' }, { text: 'second answer' }, { text: 'nothing to save' }, { text: 'SUMMARY OF THE CHAT' }, { text: 'fresh answer' });
    const chat = startChat();
    chat.send('/compact');
    await chat.output.waitFor('(nothing to compact yet)');
    chat.send('first question');
    await chat.output.waitFor('first answer');
    chat.send('second question');
    await chat.output.waitFor('second answer');
    chat.send('/compact');
    await chat.output.waitFor('(compacted');
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('first question');
    expect(JSON.stringify(server.requests[3]!.body.messages)).toContain('first question');
    chat.send('/new');
    await chat.output.waitFor('(new session');
    chat.send('hello again');
    await chat.output.waitFor('fresh answer');
    const messages = server.requests.at(-1)!.body.messages;
    expect(messages).toHaveLength(1);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('aborts a turn on Ctrl+C and exits on the second', async () => {
    // Written to a pipe, a paragraph shows once the next one starts (see terminal-markdown.test.ts).
    server.enqueue({ text: 'Starting.\n\na very slow answer that will not finish', chunkSize: 2, delayMs: 200 });
    const chat = startChat();
    chat.send('tell me slowly');
    await chat.output.waitFor('Starting.');
    chat.child.kill('SIGINT');
    await chat.output.waitFor('(aborted');
    chat.child.kill('SIGINT');
    expect(await chat.exited).toBe(130);
  });

  it('says which variables to set when no model is configured', async () => {
    home = createTempHome('operator-home-');
    const chat = track(spawnOperator(['chat'], { home }));
    expect(await chat.exited).toBe(1);
    expect(chat.output.stderr()).toContain('ANTHROPIC_API_KEY');
    expect(chat.output.stderr()).toContain('OPENAI_API_KEY');
  });

  it('loads extensions from OPERATOR_HOME/extensions and reports broken ones without stopping', async () => {
    home = createTempHome('operator-home-');
    mkdirSync(join(home, 'extensions'));
    writeFileSync(join(home, 'extensions', 'broken.mjs'), 'export default 42;\n');
    writeFileSync(
      join(home, 'extensions', 'greeter.mjs'),
      "export default (api) => api.on('before_agent_start', (event) => ({ systemPrompt: event.systemPrompt + '\\nALWAYS GREET IN FRENCH' }));\n",
    );
    server.enqueue({ text: 'Bonjour !' });
    const chat = startChat([], home);
    chat.send('hello');
    await chat.output.waitFor('Bonjour !');
    expect(chat.output.stderr()).toMatch(/broken\.mjs: .*no default-exported extension function/);
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('ALWAYS GREET IN FRENCH');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('asks before a guarded tool call and runs it only when the person says yes', async () => {
    home = createTempHome('operator-home-');
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
    await chat.output.waitFor('allow shell echo approved-run? [y/N]');
    expect(chat.output.stdout()).toContain('careful-shell: shell commands need a yes');
    chat.send('y');
    await chat.output.waitFor('Ran it.');
    expect(JSON.stringify(server.requests[1]!.body.messages.at(-1))).toContain('approved-run');
    chat.send('run the other thing');
    await chat.output.waitFor('allow shell echo denied-run? [y/N]');
    chat.send('no');
    await chat.output.waitFor('Did not run it.');
    expect(JSON.stringify(server.requests[3]!.body.messages.at(-1))).toContain('not approved');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('asks before a call that acts once the session read a web page, naming the page, and on in the next turn', async () => {
    const pages = await startPageServer();
    try {
      home = createTempHome('operator-home-');
      writeFileSync(join(home, 'operator.json'), JSON.stringify({ allowPrivateNetwork: true }));
      const url = `${pages.url}/injection`;
      server.enqueue(
        { toolCalls: [{ name: 'web_fetch', arguments: { url } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo page-said-so' } }] },
        { text: 'Not run.' },
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo next-turn' } }] },
        { text: 'Ran it.' },
      );
      const chat = startChat([], home);
      chat.send(`read ${url}`);
      await chat.output.waitFor('allow shell echo page-said-so? [y/N]');
      expect(chat.output.stdout()).toContain(`this turn read untrusted content (a web page (${url}))`);
      chat.send('n');
      await chat.output.waitFor('Not run.');
      // The page is still in the session: the next turn asks too.
      chat.send('now run it');
      await chat.output.waitFor('allow shell echo next-turn? [y/N]');
      chat.send('y');
      await chat.output.waitFor('Ran it.');
      expect(JSON.stringify(server.requests.at(-1)!.body.messages.at(-1))).toContain('next-turn');
      chat.send('/exit');
      expect(await chat.exited).toBe(0);
    } finally {
      await pages.close();
    }
  });

  it('switches profile with /profile and re-reads resources with /reload', async () => {
    home = createTempHome('operator-home-');
    mkdirSync(join(home, 'profiles', 'pirate'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'pirate', 'SOUL.md'), 'You are a pirate assistant.\n');
    server.enqueue({ text: 'Arr.' }, { text: 'Still arr.' });
    const chat = startChat([], home);
    chat.send('/profile');
    await chat.output.waitFor('profile: default');
    // The persona shows with the name: the built-in default SOUL.md here.
    await chat.output.waitFor(/persona \(SOUL\.md\): \S*profiles\/default\/SOUL\.md\n {4}You are operator, a helpful assistant/);
    chat.send('/profile nobody');
    await chat.output.waitFor('Profile "nobody" not found');
    chat.send('/profile pirate');
    await chat.output.waitFor('(profile pirate');
    await chat.output.waitFor(`persona (SOUL.md): ${join(home, 'profiles', 'pirate', 'SOUL.md')}\n    You are a pirate assistant.\n`);
    chat.send('ahoy');
    await chat.output.waitFor('Arr.');
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('You are a pirate assistant.');
    mkdirSync(join(home, 'profiles', 'pirate', 'skills', 'treasure'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'pirate', 'skills', 'treasure', 'SKILL.md'), '---\nname: treasure\ndescription: Find treasure\n---\nDig.\n');
    chat.send('/reload');
    await chat.output.waitFor('changed skills: +treasure');
    chat.send('where is it?');
    await chat.output.waitFor('Still arr.');
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('<name>treasure</name>');
    chat.send('/status');
    await chat.output.waitFor('profile  pirate');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
    // The choice is remembered for the next start.
    const again = startChat([], home);
    again.send('/profile');
    await again.output.waitFor('profile: pirate');
    again.send('/exit');
    await again.exited;
  });

  it("shortens a long persona in /profile, and names a SYSTEM.md that replaces it", async () => {
    home = createTempHome('operator-home-');
    mkdirSync(join(home, 'profiles', 'poet'), { recursive: true });
    const verses = Array.from({ length: 20 }, (_, index) => `Verse ${index + 1}: ${'la '.repeat(index === 2 ? 60 : 3).trim()}`);
    writeFileSync(join(home, 'profiles', 'poet', 'SOUL.md'), `You are a poet.\n\n\n\n${verses.join('\n')}\n`);
    mkdirSync(join(home, 'profiles', 'robot'), { recursive: true });
    writeFileSync(join(home, 'profiles', 'robot', 'SOUL.md'), 'You are a friendly robot.\n');
    writeFileSync(join(home, 'profiles', 'robot', 'SYSTEM.md'), 'You answer in binary.\n');
    const chat = startChat(['--profile', 'poet'], home);
    chat.send('/profile');
    await chat.output.waitFor('more lines in the file)');
    const shown = chat.output.stdout().split('\n');
    const start = shown.findIndex((line) => line.startsWith('  persona (SOUL.md):'));
    // The name, where the file is, eight lines (blank runs squeezed, long ones cut) and a count of the rest.
    expect(shown.slice(start - 1, start + 10)).toEqual([
      '  profile: poet',
      `  persona (SOUL.md): ${join(home, 'profiles', 'poet', 'SOUL.md')}`,
      '    You are a poet.',
      '',
      '    Verse 1: la la la',
      '    Verse 2: la la la',
      `    Verse 3: ${'la '.repeat(60).slice(0, 99 - 'Verse 3: '.length).trimEnd()}…`,
      '    Verse 4: la la la',
      '    Verse 5: la la la',
      '    Verse 6: la la la',
      '    … (14 more lines in the file)',
    ]);
    chat.send('/profile robot');
    await chat.output.waitFor(`persona (SYSTEM.md, replacing SOUL.md): ${join(home, 'profiles', 'robot', 'SYSTEM.md')}\n    You answer in binary.\n`);
    expect(chat.output.stdout()).not.toContain('friendly robot');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it("thinks as hard as the profile's default from operator.json says, and as /think says", async () => {
    home = createTempHome('operator-home-');
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ profileSettings: { default: { reasoningEffort: 'low' } } }));
    server.enqueue({ thinking: { text: 'A little.', signature: 'sig-1' }, text: 'First.' }, { text: 'Second.' }, { text: 'Third.' });
    const chat = startChat([], home);
    chat.send('/think');
    await chat.output.waitFor('thinking: low');
    chat.send('one');
    await chat.output.waitFor('First.');
    expect(server.requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    chat.send('/think off');
    await chat.output.waitFor('(thinking off)');
    chat.send('two');
    await chat.output.waitFor('Second.');
    expect(server.requests[1]?.body.thinking).toBeUndefined();
    chat.send('/think maximum');
    await chat.output.waitFor('usage: /think low | medium | high | off');
    chat.send('/think high');
    await chat.output.waitFor('(thinking high)');
    chat.send('three');
    await chat.output.waitFor('Third.');
    expect(server.requests[2]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    // The signed thinking of the first answer went back with each later call.
    expect(server.requests[2]?.body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'A little.', signature: 'sig-1' });
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('prints help', async () => {
    home = createTempHome('operator-home-');
    const help = track(spawnOperator(['--help'], { home }));
    expect(await help.exited).toBe(0);
    expect(help.output.stdout()).toContain('operator <command>');
    expect(help.output.stdout()).toContain('chat');
  });
});


describe('operator chat: subagents', () => {
  it('splits work between subagents and /status shows their spend', async () => {
    const isChild = (body: string) => body.includes('you are its subagent');
    let parentCalls = 0;
    server.setDefault((request) => {
      const body = JSON.stringify(request.body.messages);
      if (isChild(body)) return { text: 'child result', usage: { input: 300, output: 7 } };
      parentCalls++;
      if (parentCalls === 1) return { toolCalls: [{ name: 'spawn_agent', arguments: { task: 'Count the files' } }] };
      const id = [...body.matchAll(/Subagent '([0-9a-f]{4})' spawned/g)].at(-1)?.[1] ?? 'none';
      if (parentCalls === 2) return { toolCalls: [{ name: 'wait', arguments: { agent_id: id } }] };
      return { text: 'The subagent says: child result' };
    });
    const chat = startChat();
    chat.send('count them with a subagent');
    await chat.output.waitFor('The subagent says: child result');
    expect(chat.output.stdout()).toContain('> spawn_agent');
    chat.send('/status');
    await chat.output.waitFor('Subagents: 1 started, 0 working; 300 tokens in, 7 out');
    expect(chat.output.stdout()).toMatch(/[0-9a-f]{4} done: Count the files \(0 tool calls/);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });
});
