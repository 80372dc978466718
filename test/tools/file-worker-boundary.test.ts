/**
 * The file tools' boundary is the operating system: the tools are called directly here, with no
 * guardrail in front (the workspace-confinement check is a second line, tested elsewhere), and
 * their work is done by a file worker in bubblewrap that sees only the turn's folders. Every way
 * out the red team used (issue 30, rows 1, 2 and 5) reads or writes nothing outside, and the
 * private state inside a workspace that holds OPERATOR_HOME is not there at all.
 *
 * Mutation checks (run by hand, 2026-11-28): with the workers unconfined (the same FileAccess over
 * a sandbox of mode `off`: the worker a plain child of the gateway, as the tools were in the
 * gateway itself), the tests of rows 1, 2 and 5 and the read-only seat's fail: grep's path read
 * the stored message and the control token, apply_patch created `outside/planted.js`, the
 * flipped link returned the control token, `write_file` wrote. Row 4's holds there too, since the
 * worker is still a process of its own; grep run in the gateway process again is checked through
 * the real gateway in `test/red-team/row-04-catastrophic-pattern.test.ts`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/tools/builtin/builtin-tools.ts';
import { FileAccess } from '../../src/tools/files/file-access.ts';
import type { Sandbox } from '../../src/tools/sandbox/sandbox.ts';
import type { Tool, TurnContext } from '../../src/tools/tool.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { controlToken, makeWorld, sandboxFor, storedMessage, type SandboxWorld } from './sandbox-harness.ts';
import { callTool, textOf } from './tool-harness.ts';

const sandbox: Sandbox = sandboxFor('/nonexistent-home', { PATH: process.env.PATH });
const bubblewrap = sandbox.kind === 'bubblewrap' ? sandbox : undefined;

whenInstalled(bubblewrap, { suite: 'file tools in the sandbox', program: 'bwrap', install: 'apt-get install -y bubblewrap', runs: "the file tools' sandbox tests" }, () => {
  describe('file tools in the sandbox, without the guardrail', () => {
    let world: SandboxWorld;
    let files: FileAccess;
    let tools: Record<string, Tool>;

    beforeEach(async () => {
      world = await makeWorld({ homeInWorkspace: true });
      files = new FileAccess({ sandbox: sandboxFor(world.home, { PATH: process.env.PATH }), hidden: [path.join(world.home, 'gateway.json'), path.join(world.home, 'state')] });
      tools = Object.fromEntries(createBuiltinTools({ files }).map((tool) => [tool.name, tool]));
    });
    afterEach(() => files?.closeAll());

    /** A stranger's group: its own folder only, read-only, OPERATOR_HOME hidden around it. */
    const stranger = (): TurnContext => ({
      sessionKey: 'telegram:group:-1',
      platform: 'telegram',
      senderId: '9',
      admin: false,
      scheduled: false,
      tools: new Set(['read_file', 'grep', 'glob', 'list_dir']),
      workspace: { cwd: world.conversation, roots: [world.conversation], hidden: [world.home] },
    });
    /** A member granted write and shell: the working directory and the own folder, OPERATOR_HOME hidden. */
    const granted = (): TurnContext => ({
      ...stranger(),
      tools: new Set(['read_file', 'write_file', 'apply_patch', 'shell', 'grep']),
      workspace: { cwd: world.workspace, roots: [world.workspace, world.conversation], hidden: [world.home] },
    });
    const call = async (name: string, args: Record<string, unknown>, turn: TurnContext) => textOf(await callTool(tools[name]!, args, { cwd: turn.workspace!.cwd, turn }));
    const leaked = (text: string) => text.includes(controlToken) || text.includes(storedMessage);

    it("row 1: grep's include and path reach nothing outside the stranger's folder, and give no match / no-match oracle", async () => {
      const up = path.relative(world.conversation, world.home);
      const attempts = [
        { pattern: '.', include: `${up}/*` },
        { pattern: '.', include: `${up}/state/**` },
        { pattern: '.', path: world.home },
        { pattern: '.', path: path.join(world.home, 'gateway.json') },
        { pattern: 'root', path: '/etc/passwd' },
        { pattern: '.', path: world.outside },
      ];
      for (const args of attempts) expect(leaked(await call('grep', args, stranger())), JSON.stringify(args)).toBe(false);
      // An oracle needs two answers that differ: a right guess and a wrong one answer alike.
      const right = await call('grep', { pattern: `^${controlToken.slice(0, 0)}.*${controlToken.slice(0, 6)}`, path: path.join(world.home, 'gateway.json') }, stranger());
      const wrong = await call('grep', { pattern: '.*ZZZZZZ', path: path.join(world.home, 'gateway.json') }, stranger());
      expect(right).toBe(wrong);
      expect(await call('read_file', { path: path.join(world.home, 'gateway.json') }, stranger())).toMatch(/^Error: file not found/);
      expect(await call('read_file', { path: '/etc/passwd' }, stranger())).toMatch(/^Error: file not found/);
      expect(leaked(await call('list_dir', { path: world.home, depth: 4 }, stranger()))).toBe(false);
      expect(leaked(await call('glob', { pattern: `${up}/**` }, stranger()))).toBe(false);
      // What the seat may read, it reads.
      expect(await call('grep', { pattern: 'document' }, stranger())).toContain('upload.txt:1: a document sent in this conversation');
    });

    it("row 2: apply_patch writes nothing outside the workspace, whatever the headers say", async () => {
      const target = path.join(world.outside, 'planted.js');
      const relative = path.relative(world.workspace, target);
      const patches = [
        `---\t${relative}\n+++\t${relative}\n@@ -0,0 +1 @@\n+planted\n`,
        `+++ ${relative}\n--- /dev/null\n@@ -0,0 +1 @@\n+planted\n`,
        `--- /dev/null\n+++ ${target}\n@@ -0,0 +1 @@\n+planted\n`,
        `--- /dev/null\n+++ .operator/extensions/planted.js\n@@ -0,0 +1 @@\n+planted\n`,
      ];
      for (const patch of patches) {
        const result = await call('apply_patch', { patch }, granted());
        expect(result, patch).toMatch(/^Error/);
      }
      expect(existsSync(target)).toBe(false);
      expect(existsSync(path.join(world.home, 'extensions', 'planted.js'))).toBe(false);
      // Inside the workspace it applies.
      expect(await call('apply_patch', { patch: '--- /dev/null\n+++ made.txt\n@@ -0,0 +1 @@\n+made\n' }, granted())).toContain('created made.txt');
      expect(readFileSync(path.join(world.workspace, 'made.txt'), 'utf8')).toBe('made\n');
    });

    it('row 5: a symlink swapped in between checks leads nowhere outside', async () => {
      const link = path.join(world.workspace, 'flip.txt');
      writeFileSync(path.join(world.workspace, 'plain.txt'), 'plain\n');
      let flips = 0;
      let running = true;
      // The swap a command of the seat's would make, as fast as it can, while the reads go on.
      const flipper = (async () => {
        while (running) {
          rmSync(link, { force: true });
          symlinkSync(flips++ % 2 === 0 ? path.join(world.home, 'gateway.json') : path.join(world.workspace, 'plain.txt'), `${link}.new`);
          renameSync(`${link}.new`, link);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const reads: string[] = [];
      for (let index = 0; index < 50; index++) reads.push(await call('read_file', { path: 'flip.txt' }, granted()));
      running = false;
      await flipper;
      expect(flips).toBeGreaterThan(10);
      expect(reads.some(leaked)).toBe(false);
      expect(reads.some((read) => read.includes('plain'))).toBe(true);
    });

    it('a read-only seat cannot write, even through a tool it was not offered', async () => {
      const result = await call('write_file', { path: 'forged.txt', content: 'x' }, stranger());
      expect(result).toMatch(/^Error/);
      expect(existsSync(path.join(world.conversation, 'forged.txt'))).toBe(false);
    });
  });

  describe('file tools in the sandbox: bounded patterns', () => {
    it('row 4: a catastrophic pattern is stopped at the time limit, the event loop never blocked, and the next call works', async () => {
      const world = await makeWorld();
      mkdirSync(path.join(world.workspace, 'logs'), { recursive: true });
      writeFileSync(path.join(world.workspace, 'logs', 'line.txt'), `${'a'.repeat(40)}\n`);
      const files = new FileAccess({ sandbox: sandboxFor(world.home, { PATH: process.env.PATH }), timeoutMs: 1_500 });
      try {
        const [grep] = createBuiltinTools({ files }).filter((tool) => tool.name === 'grep');
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 10);
        const result = textOf(await callTool(grep!, { pattern: '(a+)+b' }, { cwd: world.workspace }));
        clearInterval(ticker);
        expect(result).toBe('Error: the search was stopped: it ran for more than 1500 ms and was stopped. Narrow it (a simpler pattern, a smaller folder) and try again.');
        // The gateway's own loop kept turning while the worker was stuck (in-process, not one tick).
        expect(ticks).toBeGreaterThan(0);
        expect(textOf(await callTool(grep!, { pattern: 'a{40}' }, { cwd: world.workspace }))).toContain('logs/line.txt:1:');
      } finally {
        files.closeAll();
      }
    });
  });
});
