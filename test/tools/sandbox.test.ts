/**
 * Choosing the sandbox: bubblewrap when it works, the `none` sandbox (saying why) when it is off
 * or missing, a clear error when it is required and missing; and the environment commands get.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { createShellTool } from '../../src/tools/builtin/shell.ts';
import { createSandbox, prepareSandbox } from '../../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import type { SandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { callTool, makeTempDir, textOf } from './tool-harness.ts';

const settings = (overrides: Partial<SandboxSettings> = {}): SandboxSettings => ({ ...defaultSandboxSettings, ...overrides });

/** An environment with what commands may see, what they may not, and a secret. */
const parentEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/owner',
  TMPDIR: '/var/tmp/owner',
  LANG: 'en_US.UTF-8',
  LANGUAGE: 'en_US:en',
  LC_ALL: 'C.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  TERM: 'xterm-256color',
  TZ: 'Europe/Berlin',
  COLORTERM: 'truecolor',
  NO_COLOR: '1',
  USER: 'owner',
  SHELL: '/bin/zsh',
  EDITOR: 'vim',
  NODE_OPTIONS: '--require /tmp/hook.js',
  OPERATOR_HOME: '/home/owner/.operator',
  OPERATOR_WEB_TOKEN: 'web-token-value',
  TELEGRAM_BOT_TOKEN: '123456:telegram-secret',
  SSH_AUTH_SOCK: '/run/user/1000/ssh-agent',
  PROJECT_FLAVOR: 'release',
  PROJECT_API_KEY: 'listed-but-secret',
  CACHE_URL: 'redis://:password-in-url@cache:6379',
};
const extraEnv = ['PROJECT_FLAVOR', 'PROJECT_API_KEY', 'CACHE_URL'];

/** What the allowlist lets through of {@link parentEnv}, before the sandbox sets HOME and TMPDIR. */
const allowlisted = {
  PATH: parentEnv.PATH,
  LANG: parentEnv.LANG,
  LANGUAGE: parentEnv.LANGUAGE,
  LC_ALL: parentEnv.LC_ALL,
  LC_TIME: parentEnv.LC_TIME,
  TERM: parentEnv.TERM,
  TZ: parentEnv.TZ,
  COLORTERM: parentEnv.COLORTERM,
  NO_COLOR: parentEnv.NO_COLOR,
  PROJECT_FLAVOR: parentEnv.PROJECT_FLAVOR,
};

const command = (cwd: string) => ({ shell: '/bin/sh', command: 'env', cwd, writable: [cwd] });

describe('createSandbox', () => {
  it('uses bubblewrap where it works, network on by default, in a namespace of its own', () => {
    const sandbox = createSandbox(settings(), { hidden: [], env: process.env });
    expect(sandbox.kind, sandbox.describe()).toBe('bubblewrap');
    expect(sandbox.describe()).toBe('commands run in bubblewrap (network on, a namespace of its own through slirp4netns)');
    expect(createSandbox(settings({ mode: 'required', network: false }), { hidden: [], env: process.env }).describe()).toBe('commands run in bubblewrap (network off)');
  });

  it('gives a networked command a namespace of its own for slirp4netns to join, and says when none can be had', () => {
    const own = createSandbox(settings(), { hidden: [], env: process.env }).spawnSpec(command('/'));
    expect(own.ownNetwork?.slirp4netns).toMatch(/\/slirp4netns$/);
    expect(own.ownNetwork?.unshare).toMatch(/\/unshare$/);
    // The namespace is made by `unshare` around bwrap (own-network-args.test.ts).
    expect(own.args).toEqual(expect.arrayContaining(['--info-fd', '--block-fd', '--ro-bind-data']));
    expect(own.args).not.toContain('--unshare-net');
    // Without slirp4netns, network on shares this machine's network, as start-up says.
    const shared = createSandbox(settings(), { hidden: [], env: process.env, slirp4netns: '/nonexistent/bin/slirp4netns' });
    expect(shared.describe()).toBe(
      'commands run in bubblewrap (network on, shared with this machine and its loopback services: slirp4netns was not found at /nonexistent/bin/slirp4netns (apt-get install slirp4netns))',
    );
    const sharedSpec = shared.spawnSpec(command('/'));
    expect(sharedSpec.ownNetwork).toBeUndefined();
    expect(sharedSpec.args).not.toContain('--unshare-net');
    // Network off: a namespace with nothing but its own loopback, and nothing for slirp4netns to do.
    const off = createSandbox(settings({ network: false }), { hidden: [], env: process.env }).spawnSpec(command('/'));
    expect(off.ownNetwork).toBeUndefined();
    expect(off.args).toContain('--unshare-net');
    expect(off.args).not.toContain('--info-fd');
  });

  it('gives bubblewrap commands the allowlist, with HOME and TMPDIR inside the sandbox', () => {
    const spec = createSandbox(settings({ env: extraEnv }), { hidden: [], env: parentEnv }).spawnSpec(command('/'));
    expect(spec.env).toEqual({ ...allowlisted, HOME: '/tmp', TMPDIR: '/tmp' });
  });

  it('runs commands unsandboxed, saying why, when bwrap is missing in auto mode', () => {
    const sandbox = createSandbox(settings(), { hidden: [], env: process.env, bwrap: '/nonexistent/bin/bwrap' });
    expect(sandbox.kind).toBe('none');
    expect(sandbox.describe()).toBe(
      "commands and file tools are not sandboxed: bwrap was not found at /nonexistent/bin/bwrap (apt-get install bubblewrap); they are offered only in the owner's own conversations",
    );
  });

  it('refuses to start without bwrap in required mode, naming what to install', () => {
    const create = () => createSandbox(settings({ mode: 'required' }), { hidden: [], env: process.env, bwrap: '/nonexistent/bin/bwrap' });
    expect(create).toThrow(ConfigurationError);
    expect(create).toThrow(
      'sandbox.mode is "required" in operator.json, but bwrap was not found at /nonexistent/bin/bwrap (apt-get install bubblewrap). Install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; it needs Linux)',
    );
  });

  it('says why when bwrap cannot make a sandbox', async () => {
    // Not bubblewrap: a program that fails the way bwrap does where namespaces are denied.
    const fake = path.join(await makeTempDir(), 'bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create a new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const sandbox = createSandbox(settings(), { hidden: [], env: process.env, bwrap: fake });
    expect(sandbox.kind).toBe('none');
    expect(sandbox.describe()).toContain(`${fake} cannot make a sandbox here (bwrap: No permissions to create a new namespace)`);
  });

  it('checks bubblewrap once when the check was prepared in the background, with the same verdict', async () => {
    // A program that counts its runs and then fails the way bwrap does where namespaces are denied.
    const folder = await makeTempDir();
    const fake = path.join(folder, 'bwrap');
    const runs = path.join(folder, 'runs');
    writeFileSync(fake, `#!/bin/sh\necho run >> '${runs}'\necho "bwrap: No permissions to create a new namespace" >&2\nexit 1\n`, { mode: 0o755 });
    const options = { hidden: ['/home/owner/.operator'], env: process.env, bwrap: fake };
    await prepareSandbox(settings(), options);
    expect(readFileSync(runs, 'utf8')).toBe('run\n');
    const sandbox = createSandbox(settings(), options);
    expect(sandbox.kind).toBe('none');
    expect(sandbox.describe()).toContain(`${fake} cannot make a sandbox here (bwrap: No permissions to create a new namespace)`);
    expect(readFileSync(runs, 'utf8')).toBe('run\n');
    // Other arguments make another command line, checked again when the sandbox is made.
    expect(createSandbox(settings({ network: false }), options).kind).toBe('none');
    expect(readFileSync(runs, 'utf8')).toBe('run\nrun\n');
  });

  it('prepares the real bubblewrap in the background, and the sandbox made after it is bubblewrap', async () => {
    const options = { hidden: [await makeTempDir()], env: process.env };
    await prepareSandbox(settings({ mode: 'required' }), options);
    expect(createSandbox(settings({ mode: 'required' }), options).kind).toBe('bubblewrap');
  });

  it('does not sandbox when the mode is off, even with bwrap installed, and says so', () => {
    const sandbox = createSandbox(settings({ mode: 'off' }), { hidden: [], env: process.env });
    expect(sandbox.kind).toBe('none');
    expect(sandbox.describe()).toBe(
      "commands and file tools are not sandboxed: the sandbox is off in operator.json (sandbox.mode); they are offered only in the owner's own conversations",
    );
  });
});

describe('the none sandbox', () => {
  it('gives commands the allowlist with the real HOME and TMPDIR', async () => {
    const cwd = await makeTempDir();
    const sandbox = createSandbox(settings({ mode: 'off', env: extraEnv }), { hidden: [], env: parentEnv });
    const spec = sandbox.spawnSpec(command(cwd));
    expect(spec).toEqual({ file: '/bin/sh', args: ['-c', 'env'], cwd, env: { ...allowlisted, HOME: '/home/owner', TMPDIR: '/var/tmp/owner' } });
  });

  it('runs the command as it is, in the working directory, with only the allowlist', async () => {
    const cwd = await makeTempDir();
    const sandbox = createSandbox(settings({ mode: 'off', env: extraEnv }), { hidden: [], env: { ...parentEnv, PATH: process.env.PATH } });
    const output = textOf(await callTool(createShellTool({ sandbox }), { command: 'pwd; env | cut -d= -f1 | sort' }, { cwd }));
    const [where, ...names] = output.split('\n');
    expect(realpathSync(where!)).toBe(cwd);
    expect(names.filter((name) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(name)).sort()).toEqual([...Object.keys(allowlisted), 'HOME', 'TMPDIR'].sort());
  });

  it('is what the shell tool uses when given no sandbox, with the real home', async () => {
    const cwd = await makeTempDir();
    const output = textOf(await callTool(createShellTool({ env: { PATH: process.env.PATH, TELEGRAM_BOT_TOKEN: 'not-for-commands' } }), { command: 'env' }, { cwd }));
    expect(output).toContain(`HOME=${homedir()}`);
    expect(output).not.toContain('not-for-commands');
  });

  it('gives a default PATH when the gateway has none', () => {
    const spec = createSandbox(settings({ mode: 'off' }), { hidden: [], env: {} }).spawnSpec(command('/'));
    expect(spec.env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  });
});
