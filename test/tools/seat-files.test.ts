/**
 * `context.files`: how an extension's tool reaches the seat's files through the turn's file worker
 * in bubblewrap. A reading tool reads the seat's roots and nothing else (OPERATOR_HOME's private
 * entries, a link out of the workspace, a folder outside are missing), and cannot write even where
 * the turn may; a writing tool writes where the turn may and its change is kept for `/undo`; a
 * stranger's seat is read-only whatever the tool says; a tool that says it touches no files gets
 * none. Through a real Agent with the fake model, the extension's tool is handed `files` by the
 * engine.
 *
 * Mutation checks (run by hand, 2026-11-29): with `seatFilesFor` giving a reading tool the turn's
 * writability (so the turn's writable worker), "a reading tool cannot write" fails (the file is
 * made) and so does the first test. With the FileAccess over a sandbox of mode `off` (the worker
 * a plain child of the gateway), four of the five fail: gateway.json, the stored transcript and
 * the link out are read, the write lands outside, the stranger reads the workspace.
 */
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExtension } from '../../src/agent/extensions.ts';
import type { ChangeReport } from '../../src/tools/changes/file-change.ts';
import { FileAccess } from '../../src/tools/files/file-access.ts';
import { seatFilesFor, type SeatFiles } from '../../src/tools/files/seat-files.ts';
import type { Sandbox } from '../../src/tools/sandbox/sandbox.ts';
import { defineTool, type MachineAccess, type TurnContext } from '../../src/tools/tool.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { controlToken, makeWorld, sandboxFor, storedMessage, type SandboxWorld } from './sandbox-harness.ts';

const sandbox: Sandbox = sandboxFor('/nonexistent-home', { PATH: process.env.PATH });
const bubblewrap = sandbox.kind === 'bubblewrap' ? sandbox : undefined;

whenInstalled(bubblewrap, { suite: "an extension tool's files", program: 'bwrap', install: 'apt-get install -y bubblewrap', runs: 'the seat files tests' }, () => {
  describe("an extension tool's files, in the seat's sandbox", () => {
    let world: SandboxWorld;
    let access: FileAccess;
    let harness: Harness | undefined;

    beforeEach(async () => {
      world = await makeWorld({ homeInWorkspace: true });
      access = new FileAccess({ sandbox: sandboxFor(world.home, { PATH: process.env.PATH }), hidden: [path.join(world.home, 'gateway.json'), path.join(world.home, 'state')] });
    });
    afterEach(async () => {
      access?.closeAll();
      await harness?.close();
      harness = undefined;
    });

    /** A member granted write and shell: the working directory and the own folder, OPERATOR_HOME hidden. */
    const granted = (): TurnContext => ({
      sessionKey: 'telegram:group:-1',
      platform: 'telegram',
      senderId: '9',
      admin: false,
      scheduled: false,
      tools: new Set(['read_file', 'write_file', 'shell', 'notes']),
      workspace: { cwd: world.workspace, roots: [world.workspace, world.conversation], hidden: [world.home] },
    });
    /** A stranger's group: its own folder only, nothing that changes files offered. */
    const stranger = (): TurnContext => ({ ...granted(), tools: new Set(['read_file', 'notes']), workspace: { cwd: world.conversation, roots: [world.conversation], hidden: [world.home] } });

    const filesOf = (turn: TurnContext, machine: MachineAccess | 'none' | undefined, changes: ChangeReport[] = []): SeatFiles | undefined =>
      seatFilesFor(access, { turn, signal: new AbortController().signal, changes: { record: async (change) => void changes.push(change) } }, turn.workspace!.cwd, machine, 'notes');
    const code = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: { code?: string }) => error.code ?? String(error));

    it("reads the seat's roots, and nothing private, outside, or behind a link", async () => {
      const files = filesOf(granted(), 'read')!;
      expect(files.writable).toBe(false);
      expect(await files.read('notes.txt')).toBe('workspace notes\n');
      expect(await files.read(path.join(world.conversation, 'upload.txt'))).toContain('a document sent');
      symlinkSync(path.join(world.home, 'gateway.json'), path.join(world.workspace, 'link.json'));
      for (const target of [path.join(world.home, 'gateway.json'), path.join(world.home, 'state', 'sessions', 'telegram-dm-1.jsonl'), 'link.json', path.join(world.outside, 'elsewhere.txt'), '/etc/shadow']) {
        expect(await code(files.read(target)), target).toBe('ENOENT');
        expect(await code(files.readBytes(target)), target).toBe('ENOENT');
        expect(await files.stat(target), target).toBeUndefined();
      }
      const found = await files.glob('**/*');
      expect(found).toContain(path.join(world.workspace, 'notes.txt'));
      expect(found.join('\n')).not.toMatch(/gateway\.json|telegram-dm-1/);
      expect(JSON.stringify(await Promise.all(found.map((file) => files.read(file).catch(() => ''))))).not.toMatch(new RegExp(`${controlToken}|${storedMessage}`));
      expect(await files.stat('notes.txt')).toMatchObject({ kind: 'file', size: 16 });
    });

    it('a reading tool cannot write, even where the turn may', async () => {
      const files = filesOf(granted(), 'read')!;
      expect(await code(files.write('made.txt', 'x'))).toBe('EROFS');
      expect(existsSync(path.join(world.workspace, 'made.txt'))).toBe(false);
    });

    it("a writing tool writes where the turn may, its change kept for /undo; never into OPERATOR_HOME's private entries or outside", async () => {
      const changes: ChangeReport[] = [];
      const files = filesOf(granted(), 'write', changes)!;
      expect(files.writable).toBe(true);
      await files.write('made.txt', 'made by an extension\n');
      expect(readFileSync(path.join(world.workspace, 'made.txt'), 'utf8')).toBe('made by an extension\n');
      await files.write('notes.txt', 'changed\n');
      expect(changes).toEqual([
        { path: path.join(world.workspace, 'made.txt'), before: null, after: 'made by an extension\n', tool: 'notes' },
        { path: path.join(world.workspace, 'notes.txt'), before: 'workspace notes\n', after: 'changed\n', tool: 'notes' },
      ]);
      await files.write('bytes.bin', new Uint8Array([0, 1, 2, 255]));
      expect([...(await files.readBytes('bytes.bin'))]).toEqual([0, 1, 2, 255]);
      for (const target of [path.join(world.home, 'gateway.json'), path.join(world.outside, 'planted.txt')]) {
        expect(await code(files.write(target, 'planted')), target).not.toBe('resolved');
      }
      expect(readFileSync(path.join(world.home, 'gateway.json'), 'utf8')).toContain(controlToken);
      expect(existsSync(path.join(world.outside, 'planted.txt'))).toBe(false);
    });

    it("a stranger's seat is read-only whatever the tool says; a tool of no files gets none", async () => {
      const files = filesOf(stranger(), 'shell')!;
      expect(files.writable).toBe(false);
      expect(await files.read('upload.txt')).toContain('a document sent');
      expect(await code(files.read(path.join(world.workspace, 'notes.txt')))).toBe('ENOENT');
      expect(await code(files.write('upload.txt', 'x'))).toBe('EROFS');
      expect(filesOf(granted(), 'none')).toBeUndefined();
      expect(filesOf(granted(), 'browser')).toBeUndefined();
      // Saying nothing counts as running commands: reads, and writes where the turn may.
      expect(filesOf(granted(), undefined)!.writable).toBe(true);
    });

    it('is handed to an extension tool by the engine, in the turn of the call', async () => {
      const notes = defineTool({
        name: 'notes',
        machine: 'read',
        description: 'Reads a note',
        parameters: z.object({ path: z.string() }),
        async execute(args, context) {
          if (!context.files) return 'no files';
          return context.files.read(args.path).then(
            (text) => `read: ${text}`,
            (error: { code?: string }) => `failed: ${error.code}`,
          );
        },
      });
      const extension = await createExtension('notes', (api) => api.registerTool(notes));
      harness = await createHarness({ agent: { extensions: [extension], files: (context, cwd, machine, name) => seatFilesFor(access, context, cwd, machine, name), cwd: world.workspace } });
      harness.server.enqueue(
        { toolCalls: [{ name: 'notes', arguments: { path: 'notes.txt' } }, { name: 'notes', arguments: { path: path.join(world.home, 'gateway.json') } }] },
        { text: 'done' },
      );
      await harness.agent.invoke('read the notes', { channel: 'telegram:group:-1', turn: granted() });
      const results = JSON.stringify(harness.server.requests[1]!.body.messages.at(-1));
      expect(results).toContain('read: workspace notes');
      expect(results).toContain('failed: ENOENT');
      expect(results).not.toContain(controlToken);
    });
  });
});
