/**
 * The `code` tool against a real typescript-language-server (and its tsserver) over a small
 * TypeScript project: two files, one importing the other, one with a type error. One server is
 * shared by the tests of the first describe, as it would be by a conversation's calls, and runs in
 * the bubblewrap sandbox as the runtime runs it; the pool's tests run it without one (the owner's
 * seats where bubblewrap is missing). The attacks on the server are in `code-tool-sandbox.test.ts`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiagnostics } from '../../src/tools/code/code-format.ts';
import { CodeServerError } from '../../src/tools/code/code-server-error.ts';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import { OpenDocuments } from '../../src/tools/code/open-documents.ts';
import { columnOf, findPosition } from '../../src/tools/code/positions.ts';
import { codeToolAvailable, locateServerInstall } from '../../src/tools/code/server-install.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { diskReader, environOf, processTree, waitFor, writeFiles } from './code-server-harness.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool, isRunning, textOf } from './tool-harness.ts';

const math = `/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}
export const biggest = Math.max(1, 2);
`;
const main = `import { add } from './math.js';

const total: number = add(1, 2);
const wrong: string = add(3, 4);
export { total, wrong };
`;
const tsconfig = {
  compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] },
  include: ['src'],
};

/** A fresh folder (its real path) holding `files`; removed in afterAll. */
async function folderWith(files: Record<string, string>): Promise<string> {
  const folder = await realpath(await mkdtemp(path.join(tmpdir(), 'operator-code-')));
  folders.push(folder);
  await writeFiles(folder, files);
  return folder;
}

const folders: string[] = [];
const home = createTempHome('operator-code-home-');
/** A secret in operator's own environment: the server must not get it. */
const env = { PATH: process.env.PATH, TELEGRAM_BOT_TOKEN: '123456:fake-token-for-the-code-tool-test' };

afterAll(async () => {
  removeTempHome(home);
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('code tool', { timeout: 60_000 }, () => {
  let project: string;
  let servers: LanguageServers;
  let tool: ReturnType<typeof createCodeTool>;
  const call = (args: Record<string, unknown>, cwd = project, turn?: TurnContext) => callTool(tool, args, { cwd, turn });

  beforeAll(async () => {
    project = await folderWith({ 'tsconfig.json': JSON.stringify(tsconfig), 'src/math.ts': math, 'src/main.ts': main, 'src/notes.md': '# notes\n' });
    servers = new LanguageServers({ sandbox: sandboxFor(home, env) });
    expect(servers.isolation).toBe('bubblewrap');
    tool = createCodeTool({ servers });
  });
  afterAll(async () => {
    await servers.closeAll();
  });

  it('is offered here: the server and typescript are installed; elsewhere it is absent', () => {
    expect(codeToolAvailable()).toBe(true);
    expect(tool.machine).toBe('shell');
    expect(locateServerInstall(pathToFileURL(path.join(tmpdir(), 'nowhere', 'x.js')))).toBeUndefined();
  });

  it('definition jumps to the declaration in the other file, with its source line', async () => {
    const output = await call({ action: 'definition', path: 'src/main.ts', line: 3, symbol: 'add' });
    expect(output.isError).toBeUndefined();
    expect(textOf(output)).toBe('src/math.ts:2:17  export function add(a: number, b: number): number {');
    // The same by column (1-based, as read_file numbers lines).
    expect(textOf(await call({ action: 'definition', path: 'src/main.ts', line: 4, column: 23 }))).toBe(textOf(output));
  });

  it('references lists the declaration, the import and both uses', async () => {
    const text = textOf(await call({ action: 'references', path: 'src/math.ts', line: 2, symbol: 'add' }));
    expect(text.split('\n')[0]).toBe('4 references to `add` at src/math.ts:2:');
    expect(text).toContain('src/math.ts:2:17  export function add(a: number, b: number): number {');
    expect(text).toContain("src/main.ts:1:10  import { add } from './math.js';");
    expect(text).toContain('src/main.ts:3:23  const total: number = add(1, 2);');
    expect(text).toContain('src/main.ts:4:23  const wrong: string = add(3, 4);');
    // Capped, with a count of the rest.
    const capped = textOf(await callTool(createCodeTool({ servers, maxReferences: 2 }), { action: 'references', path: 'src/math.ts', line: 2, symbol: 'add' }, { cwd: project }));
    expect(capped.split('\n')).toHaveLength(4);
    expect(capped).toMatch(/\n\.\.\. and 2 more$/);
    // A location in a place hidden from the turn is counted, never named.
    const turn: TurnContext = { sessionKey: 'telegram:dm:1', platform: 'telegram', senderId: '1', admin: false, scheduled: false, workspace: { cwd: project, roots: [project], hidden: [path.join(project, 'src/math.ts')] } };
    const hidden = textOf(await call({ action: 'references', path: 'src/main.ts', line: 3, symbol: 'add' }, project, turn));
    expect(hidden).not.toContain('math.ts');
    expect(hidden).toMatch(/\n\(1 more in places this conversation cannot see\)$/);
  });

  it('shows a location outside the workspace by its path alone', async () => {
    const text = textOf(await call({ action: 'definition', path: 'src/math.ts', line: 5, symbol: 'max' }));
    expect(text).toMatch(/^\/.*\/typescript\/lib\/lib\.es5\.d\.ts:\d+:\d+ \(outside the workspace\)$/);
  });

  it('hover shows the type and the documentation as markdown', async () => {
    const text = textOf(await call({ action: 'hover', path: 'src/main.ts', line: 3, symbol: 'add' }));
    expect(text).toContain('add(a: number, b: number): number');
    expect(text).toContain('```typescript');
    expect(text).toContain('Adds two numbers.');
    expect(textOf(await call({ action: 'hover', path: 'src/main.ts', line: 3, symbol: 'total' }))).toContain('const total: number');
  });

  it('diagnostics shows the TS error with its line; fixed on disk, it is gone', async () => {
    const before = textOf(await call({ action: 'diagnostics', path: 'src/main.ts' }));
    expect(before).toBe("src/main.ts:4:7 error TS2322 Type 'number' is not assignable to type 'string'.");
    await writeFile(path.join(project, 'src/main.ts'), main.replace('const wrong: string', 'const wrong: number'));
    expect(textOf(await call({ action: 'diagnostics', path: 'src/main.ts' }))).toBe('No syntax or type errors in src/main.ts.');
    // A change on disk to the other file (open since the references call) is seen too.
    await writeFile(path.join(project, 'src/math.ts'), math.replace('): number {', '): string {').replace('return a + b;', 'return String(a + b);'));
    const broken = textOf(await call({ action: 'diagnostics', path: 'src/main.ts' })).split('\n');
    expect(broken).toEqual([
      "src/main.ts:3:7 error TS2322 Type 'string' is not assignable to type 'number'.",
      "src/main.ts:4:7 error TS2322 Type 'string' is not assignable to type 'number'.",
    ]);
    await writeFile(path.join(project, 'src/math.ts'), math);
    expect(textOf(await call({ action: 'diagnostics', path: 'src/main.ts' }))).toBe('No syntax or type errors in src/main.ts.');
  });

  it('refuses a path outside the workspace, and one in a folder hidden from the turn', async () => {
    const outside = await folderWith({ 'tsconfig.json': '{}', 'secret.ts': 'export const token = "abc";\n' });
    const output = await call({ action: 'hover', path: path.join(outside, 'secret.ts'), line: 1, symbol: 'token' });
    expect(output.isError).toBe(true);
    expect(textOf(output)).toContain('is outside the workspace');
    expect(textOf(await call({ action: 'diagnostics', path: '../' + path.basename(outside) + '/secret.ts' }))).toContain('is outside the workspace');
    const turn: TurnContext = { sessionKey: 'telegram:dm:1', platform: 'telegram', senderId: '1', admin: false, scheduled: false, workspace: { cwd: project, roots: [project], hidden: [path.join(project, 'src')] } };
    expect(textOf(await call({ action: 'diagnostics', path: 'src/main.ts' }, project, turn))).toContain('is not open to this conversation');
    const privateState = createCodeTool({ servers, hidden: [path.join(project, 'src')] });
    expect(textOf(await callTool(privateState, { action: 'diagnostics', path: 'src/main.ts' }, { cwd: project }))).toContain("operator's private state");
  });

  it('says so when the file is in no project, or is not TypeScript or JavaScript', async () => {
    const loose = await folderWith({ 'a.ts': 'export const a = 1;\n' });
    const none = await call({ action: 'diagnostics', path: 'a.ts' }, loose);
    expect(none.isError).toBe(true);
    expect(textOf(none)).toBe(
      'Error: a.ts is not in a project: no tsconfig.json or package.json in its folder or above it inside the workspace. The code tool starts the TypeScript language server only for a project folder.',
    );
    const markdown = await call({ action: 'diagnostics', path: 'src/notes.md' });
    expect(markdown.isError).toBe(true);
    expect(textOf(markdown)).toBe('Error: src/notes.md: the code tool reads TypeScript and JavaScript, Rust, Python, Go files (.ts, .mts, .cts, .tsx, .js, .mjs, .cjs, .jsx, .rs, .py, .pyi, .go), not .md files');
    expect(textOf(await call({ action: 'hover', path: 'src/main.ts', line: 3 }))).toBe('Error: hover needs line and either column or symbol (the name on that line)');
    expect(textOf(await call({ action: 'hover', path: 'src/main.ts', line: 3, symbol: 'nothing' }))).toBe('Error: `nothing` is not on line 3 of src/main.ts: const total: number = add(1, 2);');
    expect(textOf(await call({ action: 'hover', path: 'src/main.ts', line: 99, column: 1 }))).toBe('Error: line 99 is past the end of src/main.ts (6 lines)');
    expect(textOf(await call({ action: 'diagnostics', path: 'src/missing.ts' }))).toBe('Error: file not found: src/missing.ts');
  });

  it('gives the server a clean environment: no secret of operator, for it, its tsserver or the sandbox', async () => {
    await call({ action: 'hover', path: 'src/main.ts', line: 3, symbol: 'add' });
    const [running] = servers.list();
    expect(running?.root).toBe(project);
    const tree = await processTree(running!.pid!);
    // bubblewrap, its process 1 in the sandbox, the server, its tsserver.
    expect(tree.length).toBeGreaterThanOrEqual(4);
    for (const pid of tree) {
      const environment = await environOf(pid);
      expect(environment.has('TELEGRAM_BOT_TOKEN')).toBe(false);
      expect(environment.get('PATH')).toBe(env.PATH);
      expect(environment.get('HOME')).toBe('/tmp');
      // The allowlist, what the sandbox sets, and what the server adds for its tsserver (its module
      // path and the IPC channel of `fork`).
      const expected = (name: string) => ['PATH', 'HOME', 'TMPDIR', 'PWD', 'NODE_PATH'].includes(name) || name.startsWith('NODE_CHANNEL_');
      expect([...environment.keys()].filter((name) => !expected(name))).toEqual([]);
    }
  });

  it('fails the call in flight with a clear error when the server dies, and starts a new one on the next call', async () => {
    const file = path.join(project, 'src/main.ts');
    const died = servers.use({ project, roots: [project] }, async (server) => {
      await server.open(file, 'typescript', await readFile(file, 'utf8'), diskReader);
      // server.pid is bubblewrap, whose death takes the server down only once the kernel has run
      // it: a server still running meanwhile may answer the hover, and that answer is a fine one.
      // Held (SIGSTOP) first, the server and its tsservers cannot answer what is asked below.
      for (const pid of await processTree(server.pid!)) process.kill(pid, 'SIGSTOP');
      const asked = server.hover(file, { line: 2, character: 22 });
      process.kill(server.pid!, 'SIGKILL');
      return asked;
    });
    await expect(died).rejects.toThrow(CodeServerError);
    await expect(died).rejects.toThrow(/was killed by SIGKILL before answering\. It is started again on the next call\./);
    const [old] = servers.list();
    expect(old).toBeUndefined();
    const output = await call({ action: 'definition', path: 'src/main.ts', line: 3, symbol: 'add' });
    expect(textOf(output)).toBe('src/math.ts:2:17  export function add(a: number, b: number): number {');
    expect(servers.list()).toHaveLength(1);
  });

  it('stops the server and its tsserver on closeAll; later calls say so', async () => {
    await call({ action: 'hover', path: 'src/main.ts', line: 3, symbol: 'add' });
    const pid = servers.list()[0]!.pid!;
    const tree = await processTree(pid);
    await servers.closeAll();
    expect(await isRunning(pid)).toBe(false);
    await waitFor(async () => (await Promise.all(tree.map(isRunning))).every((running) => !running));
    expect(textOf(await call({ action: 'diagnostics', path: 'src/main.ts' }))).toBe('Error: the language servers were stopped: operator is shutting down');
  });
});

describe('language servers', { timeout: 60_000 }, () => {
  it('without a sandbox (the owner\'s seats where bubblewrap is missing): runs operator\'s tsserver through a private launcher, removed on closeAll', async () => {
    const project = await folderWith({ 'package.json': '{"name":"plain","private":true}', 'index.js': 'export const one = 1;\n' });
    const servers = new LanguageServers({ env });
    try {
      expect(servers.isolation).toBe('none');
      const tool = createCodeTool({ servers });
      expect(textOf(await callTool(tool, { action: 'hover', path: 'index.js', line: 1, symbol: 'one' }, { cwd: project }))).toContain('const one: 1');
      const running = servers.list()[0]!;
      expect(running.roots).toEqual([project]);
      const tree = await processTree(running.pid!);
      const tsserver = (await Promise.all(tree.map(async (pid) => (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')))).flat().find((arg) => arg.endsWith('tsserver.js'))!;
      expect(tsserver).toMatch(/operator-tsserver-[^/]+\/typescript\/lib\/tsserver\.js$/);
      const launcher = path.dirname(path.dirname(path.dirname(tsserver)));
      expect((await stat(launcher)).mode & 0o777).toBe(0o700);
      expect(await readFile(tsserver, 'utf8')).toContain('.sys.require = undefined;');
      await servers.closeAll();
      expect(existsSync(launcher)).toBe(false);
    } finally {
      await servers.closeAll();
    }
  });

  it('stops a server left idle', async () => {
    const project = await folderWith({ 'package.json': '{"name":"idle","private":true}', 'index.js': 'export const one = 1;\n' });
    const servers = new LanguageServers({ idleMs: 200 });
    try {
      const tool = createCodeTool({ servers });
      expect(textOf(await callTool(tool, { action: 'hover', path: 'index.js', line: 1, symbol: 'one' }, { cwd: project }))).toContain('const one: 1');
      const pid = servers.list()[0]!.pid!;
      await waitFor(async () => servers.list().length === 0 && !(await isRunning(pid)));
    } finally {
      await servers.closeAll();
    }
  });

  it('re-sends a changed open document with the next version (a renewed one even unchanged), and closes the least recently used beyond the limit', async () => {
    const folder = await folderWith({ 'a.ts': 'a', 'b.ts': 'b', 'c.ts': 'c' });
    const documents = new OpenDocuments(2);
    const [a, b, c] = ['a.ts', 'b.ts', 'c.ts'].map((name) => path.join(folder, name)) as [string, string, string];
    expect(await documents.sync(a, 'typescript', 'a', diskReader)).toEqual([{ kind: 'open', uri: OpenDocuments.uriOf(a), languageId: 'typescript', version: 1, text: 'a' }]);
    expect(await documents.sync(a, 'typescript', 'a', diskReader)).toEqual([]);
    await writeFile(a, 'a2');
    expect(await documents.sync(b, 'typescript', 'b', diskReader)).toEqual([
      { kind: 'change', uri: OpenDocuments.uriOf(a), version: 2, text: 'a2' },
      { kind: 'open', uri: OpenDocuments.uriOf(b), languageId: 'typescript', version: 1, text: 'b' },
    ]);
    expect(await documents.sync(c, 'typescript', 'c', diskReader)).toEqual([
      { kind: 'close', uri: OpenDocuments.uriOf(a) },
      { kind: 'open', uri: OpenDocuments.uriOf(c), languageId: 'typescript', version: 1, text: 'c' },
    ]);
    await rm(b);
    expect(await documents.sync(c, 'typescript', 'c3', diskReader)).toEqual([
      { kind: 'close', uri: OpenDocuments.uriOf(b) },
      { kind: 'change', uri: OpenDocuments.uriOf(c), version: 2, text: 'c3' },
    ]);
    // Renewed (for gopls): a new version of the same text.
    expect(await documents.sync(c, 'typescript', 'c3', diskReader, true)).toEqual([{ kind: 'change', uri: OpenDocuments.uriOf(c), version: 3, text: 'c3' }]);
  });
});

describe('code tool positions and lists', () => {
  it('counts columns in characters, as people do, and the server in UTF-16 units', () => {
    const lines = ['const smile = "😀"; const add = 1;', 'adder(add)'];
    expect(findPosition(lines, 'a.ts', 1, undefined, 'add')).toEqual({ position: { line: 0, character: 26 } });
    // `add` is the 26th character, but 27th UTF-16 unit (the emoji takes two).
    expect(findPosition(lines, 'a.ts', 1, 26)).toEqual({ position: { line: 0, character: 26 } });
    expect(columnOf(lines[0], 26)).toBe(26);
    // A whole name only, nearest the column when one is given.
    expect(findPosition(lines, 'a.ts', 2, undefined, 'add')).toEqual({ position: { line: 1, character: 6 } });
    expect(findPosition(['add + add'], 'a.ts', 1, 8, 'add')).toEqual({ position: { line: 0, character: 6 } });
    expect(findPosition(lines, 'a.ts', 2, 12)).toEqual({ error: 'column 12 is past the end of line 2 of a.ts (10 characters): adder(add)' });
  });

  it('lists diagnostics in file order, capped, with long messages cut', () => {
    const diagnostic = (line: number, text: string) => ({ start: { line, offset: 1 }, end: { line, offset: 2 }, text, code: 2322, category: 'error' });
    const many = [diagnostic(3, 'third'), diagnostic(1, 'first\n  because of this'), diagnostic(2, 'x'.repeat(1_000))];
    const lines = formatDiagnostics(many, 'a.ts', 'a\nb\nc\n', 2);
    expect(lines[0]).toBe('a.ts:1:1 error TS2322 first because of this');
    expect(lines[1]!.length).toBeLessThan(450);
    expect(lines[2]).toBe('... and 1 more');
  });
});
