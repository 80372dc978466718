/**
 * The `shell` tool through real bubblewrap: what a command sees of the filesystem, the processes
 * and the network, what it may change, and that a timeout or an abort leaves nothing running.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { controlToken, hostCommandLines, makeWorld, runIn, sandboxFor, storedMessage } from './sandbox-harness.ts';

const env = { PATH: process.env.PATH, TELEGRAM_BOT_TOKEN: '123456:sandbox-test-secret' };

/** Streams output into a promise that resolves once `marker` has appeared. */
function waitForOutput(marker: string) {
  let text = '';
  let seen: () => void = () => {};
  const appeared = new Promise<void>((resolve) => (seen = resolve));
  return {
    appeared,
    onOutput: (chunk: string) => {
      text += chunk;
      if (text.includes(marker)) seen();
    },
  };
}

describe('shell in the bubblewrap sandbox', () => {
  it('runs commands in bubblewrap, in the working directory', async () => {
    const world = await makeWorld();
    const sandbox = sandboxFor(world.home, env);
    expect(sandbox.kind, sandbox.describe()).toBe('bubblewrap');
    expect(sandbox.describe()).toBe('commands run in bubblewrap (network on, a namespace of its own through slirp4netns)');
    expect(await runIn(sandbox, 'pwd; cat notes.txt', [world.workspace])).toEqual({ text: `${world.workspace}\nworkspace notes`, isError: false });
  });

  it('does not show OPERATOR_HOME: not the control file, the store or anything else in it', async () => {
    const world = await makeWorld();
    const result = await runIn(
      sandboxFor(world.home, env),
      `cat ${world.home}/gateway.json; ls -la ${world.home} ${world.home}/state; find ${world.home}; grep -rs PELICAN ${world.home}; echo probes-ran`,
      [world.workspace],
    );
    expect(result.text).toContain('probes-ran');
    expect(result.text).toContain(`cat: ${world.home}/gateway.json: No such file or directory`);
    expect(result.text).toContain(`find: '${world.home}': No such file or directory`);
    expect(result.text).not.toContain(controlToken);
    expect(result.text).not.toContain(storedMessage);
    expect(result.text).not.toContain('telegram-dm-1');
  });

  it('hides OPERATOR_HOME inside the workspace while the workspace and the conversation folder work', async () => {
    const world = await makeWorld({ homeInWorkspace: true });
    const sandbox = sandboxFor(world.home, env);
    const roots = [world.workspace, world.conversation];
    const look = await runIn(sandbox, 'ls -A .operator; find . -type f | sort; cat .operator/gateway.json; grep -rs PELICAN .; echo probes-ran', roots);
    expect(look.text).toContain('probes-ran');
    // Only the path down to the conversation's folder is there, and in it only its own file.
    expect(look.text).toContain(`./.operator/profiles/default/temp/telegram-group-1/upload.txt\n./notes.txt\n`);
    expect(look.text.split('\n')[0]).toBe('profiles');
    expect(look.text).toContain('cat: .operator/gateway.json: No such file or directory');
    expect(look.text).not.toContain(controlToken);
    expect(look.text).not.toContain(storedMessage);

    const write = await runIn(
      sandbox,
      `echo made > made.txt && echo reply > ${world.conversation}/reply.txt && echo written; touch .operator/state/planted; mkdir .operator/extensions`,
      roots,
    );
    expect(write.text).toContain('written');
    expect(write.text).toContain("touch: cannot touch '.operator/state/planted': No such file or directory");
    expect(write.text).toContain("mkdir: cannot create directory '.operator/extensions': Read-only file system");
    expect(readFileSync(path.join(world.workspace, 'made.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(path.join(world.conversation, 'reply.txt'), 'utf8')).toBe('reply\n');
    expect(existsSync(path.join(world.home, 'state', 'planted'))).toBe(false);
    expect(existsSync(path.join(world.home, 'extensions'))).toBe(false);
    expect(readFileSync(path.join(world.home, 'gateway.json'), 'utf8')).toContain(controlToken);
  });

  it('opens nothing of OPERATOR_HOME but the roots inside it when OPERATOR_HOME is itself a root', async () => {
    const world = await makeWorld();
    const result = await runIn(sandboxFor(world.home, env), 'pwd; find . | sort; cat gateway.json', [world.home, world.conversation]);
    expect(result.text).toBe(
      `${world.home}\n.\n./profiles\n./profiles/default\n./profiles/default/temp\n./profiles/default/temp/telegram-group-1\n./profiles/default/temp/telegram-group-1/upload.txt\n` +
        'STDERR:\ncat: gateway.json: No such file or directory\n[Exit code: 1]',
    );
  });

  it('starts in an empty folder when the working directory is inside OPERATOR_HOME but no root shows it', async () => {
    const world = await makeWorld({ homeInWorkspace: true });
    const cwd = path.join(world.home, 'state');
    const result = await runIn(sandboxFor(world.home, env), 'pwd; ls -A | wc -l', [world.workspace], { cwd });
    expect(result).toEqual({ text: `${cwd}\n0`, isError: false });
  });

  it("shows only the sandbox's own processes", async () => {
    const world = await makeWorld();
    const sandbox = sandboxFor(world.home, env);
    const listed = await runIn(sandbox, "ls /proc | grep -E '^[0-9]+$' | wc -l", [world.workspace]);
    // bwrap (process 1), the shell, and the pipeline's three commands.
    expect(Number(listed.text)).toBeLessThanOrEqual(5);
    const commands = await runIn(sandbox, 'ps -e -o comm=', [world.workspace]);
    // bash runs its last command in its own place.
    expect(commands.text.split('\n').sort()).toEqual(['bwrap', 'ps']);
    const lines = await runIn(sandbox, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '", [world.workspace]);
    expect(lines.text).toContain('/usr/bin/bwrap');
    expect(lines.text).not.toMatch(/vitest|node/);
  });

  it('shows the system read-only and nothing of /etc/shadow, /root, /home, /var, /run, /sys', async () => {
    const world = await makeWorld();
    const sandbox = sandboxFor(world.home, env);
    const hidden = await runIn(sandbox, 'cat /etc/shadow; ls /root /home /var /run /sys /etc/ssh /etc/ssl/private', [world.workspace]);
    for (const path of ['/etc/shadow', '/root', '/home', '/var', '/run', '/sys', '/etc/ssh', '/etc/ssl/private']) {
      expect(hidden.text).toMatch(new RegExp(`${path}'?: No such file or directory`));
    }
    const top = await runIn(sandbox, 'ls /', [world.workspace]);
    const system = ['bin', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'sbin', 'tmp', 'usr'];
    expect(top.text.split('\n').filter((entry) => !system.includes(entry))).toEqual([]);
    const write = await runIn(sandbox, 'touch /usr/planted /etc/passwd', [world.workspace]);
    expect(write.text).toContain("touch: cannot touch '/usr/planted': Read-only file system");
    expect(write.text).toContain("touch: cannot touch '/etc/passwd': Read-only file system");
    expect(existsSync('/usr/planted')).toBe(false);
    // Users and certificates are there: programs that look them up still work.
    const lookups = await runIn(sandbox, 'id -un; ls /etc/ssl/certs | wc -l', [world.workspace]);
    expect(lookups.text).toMatch(/^root\n[1-9]\d*$/);
  });

  it('lets commands change the workspace but not a folder outside it', async () => {
    const world = await makeWorld();
    const result = await runIn(sandboxFor(world.home, env), `echo kept > kept.txt; echo lost > ${world.outside}/lost.txt; mkdir /planted; echo "$HOME $TMPDIR"; touch $HOME/scratch && echo scratch-ok`, [
      world.workspace,
    ]);
    expect(readFileSync(path.join(world.workspace, 'kept.txt'), 'utf8')).toBe('kept\n');
    expect(existsSync(path.join(world.outside, 'lost.txt'))).toBe(false);
    expect(result.text).toContain(`${world.outside}/lost.txt: No such file or directory`);
    expect(result.text).toContain("mkdir: cannot create directory '/planted': Read-only file system");
    expect(result.text).toContain('/tmp /tmp\nscratch-ok');
  });

  it('shows settings.readOnly read-only and lets commands change settings.readWrite', async () => {
    const world = await makeWorld();
    const shared = path.join(world.outside, 'shared');
    mkdirSync(shared);
    const sandbox = sandboxFor(world.home, env, { readOnly: [world.outside], readWrite: [shared] });
    const result = await runIn(sandbox, `cat ${world.outside}/elsewhere.txt; touch ${world.outside}/planted; echo out > ${shared}/out.txt && echo shared-ok`, [world.workspace]);
    expect(result.text).toContain('outside the workspace');
    expect(result.text).toContain(`touch: cannot touch '${world.outside}/planted': Read-only file system`);
    expect(result.text).toContain('shared-ok');
    expect(existsSync(path.join(world.outside, 'planted'))).toBe(false);
    expect(readFileSync(path.join(shared, 'out.txt'), 'utf8')).toBe('out\n');
  });

  it('covers OPERATOR_HOME inside a read-only folder too', async () => {
    const world = await makeWorld();
    const parent = path.dirname(world.home);
    const result = await runIn(sandboxFor(world.home, env, { readOnly: [parent] }), `cat ${world.outside}/elsewhere.txt; ls -A ${world.home} | wc -l; cat ${world.home}/gateway.json`, [world.workspace]);
    expect(result.text).toContain('outside the workspace\n0\n');
    expect(result.text).not.toContain(controlToken);
  });

  describe('network', () => {
    let server: Server | undefined;
    afterEach(() => server?.close());

    /** A loopback server counting connections; resolves to its port and the count so far. */
    async function listen(): Promise<{ port: number; connections: () => number }> {
      let connections = 0;
      server = createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return { port: (server.address() as AddressInfo).port, connections: () => connections };
    }

    const connect = (port: number) => `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo no-connection`;

    it('reaches no loopback server when network is on: the network is its own (more in own-network.test.ts)', async () => {
      const world = await makeWorld();
      const { port, connections } = await listen();
      const result = await runIn(sandboxFor(world.home, env), connect(port), [world.workspace]);
      expect(result.text).toContain('no-connection');
      expect(connections()).toBe(0);
    });

    it("reaches a loopback server when network is on without slirp4netns: this machine's network is shared", async () => {
      const world = await makeWorld();
      const { port, connections } = await listen();
      const sandbox = createSandbox({ ...defaultSandboxSettings }, { hidden: [world.home], env, slirp4netns: '/nonexistent/bin/slirp4netns' });
      expect(sandbox.describe()).toMatch(/^commands run in bubblewrap \(network on, shared with this machine and its loopback services: slirp4netns was not found/);
      const result = await runIn(sandbox, connect(port), [world.workspace]);
      expect(result.text).toBe('hello from the host');
      expect(connections()).toBe(1);
    });

    it('reaches no server of this machine when network is off', async () => {
      const world = await makeWorld();
      const { port, connections } = await listen();
      const sandbox = sandboxFor(world.home, env, { network: false });
      expect(sandbox.describe()).toBe('commands run in bubblewrap (network off)');
      const result = await runIn(sandbox, connect(port), [world.workspace]);
      expect(result.text).toContain('no-connection');
      expect(result.text).toContain('Connection refused');
      expect(connections()).toBe(0);
    });
  });

  it('passes the allowlist and settings.env, never a secret-looking name even when listed', async () => {
    const world = await makeWorld();
    const parent = { ...env, LANG: 'C.UTF-8', TERM: 'xterm', LC_ALL: 'C.UTF-8', BUILD_FLAVOR: 'release', DEPLOY_API_TOKEN: 'tok-listed-but-secret', UNLISTED: 'not-passed' };
    const sandbox = sandboxFor(world.home, parent, { env: ['BUILD_FLAVOR', 'DEPLOY_API_TOKEN'] });
    const result = await runIn(sandbox, 'env | cut -d= -f1 | sort; echo "flavor=$BUILD_FLAVOR"', [world.workspace]);
    const names = result.text.split('\n').filter((line) => /^[A-Za-z_]+$/.test(line));
    expect(names.filter((name) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(name))).toEqual(['BUILD_FLAVOR', 'HOME', 'LANG', 'LC_ALL', 'PATH', 'TERM', 'TMPDIR']);
    expect(result.text).toContain('flavor=release');
    expect(result.text).not.toContain('tok-listed-but-secret');
    expect(result.text).not.toContain('sandbox-test-secret');
  });

  it('on timeout kills everything the command started, background jobs in a session of their own included', async () => {
    const world = await makeWorld();
    const watcher = waitForOutput('started');
    const pending = runIn(sandboxFor(world.home, env), 'sleep 987.61 & setsid sleep 987.62 & echo started; wait', [world.workspace], {
      timeoutMs: 3_000,
      onOutput: watcher.onOutput,
    });
    await watcher.appeared;
    const sleeping = () => hostCommandLines().filter((line) => line === 'sleep 987.61' || line === 'sleep 987.62');
    // Seen from the host, once both have started.
    await vi.waitFor(() => expect(sleeping().sort()).toEqual(['sleep 987.61', 'sleep 987.62']), { timeout: 2_500 });
    expect(await pending).toEqual({ text: 'started\n[Command timed out after 3000ms]', isError: true });
    expect(sleeping()).toEqual([]);
  });

  it('on abort kills everything the command started', async () => {
    const world = await makeWorld();
    const watcher = waitForOutput('started');
    const controller = new AbortController();
    const pending = runIn(sandboxFor(world.home, env), 'sleep 987.63 & echo started; wait', [world.workspace], {
      timeoutMs: 60_000,
      onOutput: watcher.onOutput,
      signal: controller.signal,
    });
    await watcher.appeared;
    await vi.waitFor(() => expect(hostCommandLines()).toContain('sleep 987.63'));
    controller.abort(new Error('turn aborted'));
    await expect(pending).rejects.toThrow('turn aborted');
    expect(hostCommandLines()).not.toContain('sleep 987.63');
  });
});
