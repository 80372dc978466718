/**
 * The `code` tool's language server as an attacker would try it (issue 30, row 3: a workspace's
 * own `node_modules/typescript/lib/tsserver.js` ran as the gateway's user and read its
 * environment, `web-token` and `state/`). Through the real server in real bubblewrap: it runs in
 * the sandbox and sees the workspace root read-only, never OPERATOR_HOME, with no network and no
 * secret in its environment; it runs operator's own tsserver, never a planted one nor a planted
 * `node_modules/.bin` server; it loads no tsserver plugin, even one sitting where tsserver looks;
 * and a server started for one seat is never used by a seat that sees less.
 *
 * Mutation checks (run by hand, results as found):
 * - with the pool's servers spawned outside the sandbox again (the pool given no sandbox), the two
 *   tests of the first describe fail (the server's process is node, not bwrap; the hover on
 *   `copy` shows the value from OPERATOR_HOME's state/), and so does the seat test (the narrower
 *   seat's hover shows the note);
 * - with `tsserver.path` left out of `initialize` (the server's own choice: the workspace's
 *   TypeScript first, operator's as the fallback) and the check of the TypeScript it says it runs
 *   taken out, both "never runs a planted tsserver.js" tests fail: without a sandbox the planted
 *   tsserver writes its marker; in bubblewrap it cannot, dies, and the server with it;
 * - with the launcher's `sys.require = undefined` left out, the plugin test fails: the hover is
 *   the planted plugin's `PLANTED-PLUGIN-RAN`, in bubblewrap too;
 * - with the pool keyed by project folder alone, the seat test fails: the narrower seat's hover
 *   shows the value only the wider seat may read;
 * - with the asked file read in the gateway process again (`readFile` instead of the worker's
 *   `readText`), the file worker test fails: the diagnostics of the hidden file come back.
 */
import { cp, mkdir, readFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { privatePaths } from '../../src/core/private-paths.ts';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { FileAccess } from '../../src/tools/files/file-access.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import { serverInstall, type ServerInstall } from '../../src/tools/code/server-install.ts';
import type { Sandbox } from '../../src/tools/sandbox/sandbox.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { commandLineOf, environOf, findInTree, folderWith, networkOf, processTree, writeFiles } from './code-server-harness.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool, makeTempDir, textOf } from './tool-harness.ts';

const secrets = { telegram: '123456:code-sandbox-telegram-secret', anthropic: 'sk-ant-code-sandbox-secret-0123456789', webToken: 'web-token-code-sandbox-7c1d9e', state: 'STATE-SECRET-code-sandbox-ORCA' };
const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', TELEGRAM_BOT_TOKEN: secrets.telegram, ANTHROPIC_API_KEY: secrets.anthropic };
const tsconfig = JSON.stringify({
  compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] },
  include: ['src'],
});
const install = serverInstall()!;

const homes: string[] = [];
afterAll(() => homes.splice(0).forEach(removeTempHome));

/** An OPERATOR_HOME with a web token and a TypeScript file in `state/`, kept for the whole file. */
async function makeHome(): Promise<string> {
  const home = realpathSync(createTempHome('operator-code-home-'));
  homes.push(home);
  await writeFiles(home, { 'web-token': `${secrets.webToken}\n`, 'state/keys.ts': `export const launch = '${secrets.state}';\n` });
  return home;
}

/** A turn of a seat whose workspace is `roots` (the first its working directory). */
function turnIn(roots: string[]): TurnContext {
  return { sessionKey: 'telegram:group:-100', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd: roots[0]!, roots } };
}

const pools: LanguageServers[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.closeAll()));
});

/** A pool of servers in `sandbox`, closed after the test. */
function poolIn(sandbox: Sandbox | undefined, options: { install?: ServerInstall; env?: NodeJS.ProcessEnv } = {}): LanguageServers {
  const pool = new LanguageServers({ sandbox, env, ...options });
  pools.push(pool);
  return pool;
}

describe('the code tool in the sandbox', { timeout: 60_000 }, () => {
  let home: string;
  let sandbox: Sandbox;
  beforeAll(async () => {
    home = await makeHome();
    sandbox = sandboxFor(home, env);
  });

  it('runs the server in bubblewrap: it sees the workspace root, never OPERATOR_HOME, with no network and no secret', async () => {
    expect(sandbox.kind, sandbox.describe()).toBe('bubblewrap');
    const workspace = await folderWith({ 'tsconfig.json': tsconfig, 'src/index.ts': 'export const answer: number = 42;\n' });
    const servers = poolIn(sandbox);
    const tool = createCodeTool({ servers, hidden: privatePaths(home) });
    expect(textOf(await callTool(tool, { action: 'hover', path: 'src/index.ts', line: 1, symbol: 'answer' }, { cwd: workspace, turn: turnIn([workspace]) }))).toContain('const answer: number');
    const [running] = servers.list();
    expect(running).toMatchObject({ root: workspace, roots: [workspace] });
    expect(await readFile(`/proc/${running!.pid}/comm`, 'utf8')).toBe('bwrap\n');
    const server = await findInTree(running!.pid!, 'typescript-language-server');
    const tsserver = await findInTree(running!.pid!, 'tsserver.js');
    expect(server).toBeDefined();
    expect(tsserver).toBeDefined();
    // Type acquisition (which runs npm) is off: no typings installer beside tsserver.
    expect(await commandLineOf(tsserver!)).toContain('--disableAutomaticTypingAcquisition');
    expect(await findInTree(running!.pid!, 'typingsInstaller')).toBeUndefined();
    // What the server's own filesystem holds, seen through /proc/<pid>/root.
    const seen = (file: string) => existsSync(`/proc/${server}/root${file}`);
    expect(seen(path.join(workspace, 'src', 'index.ts'))).toBe(true);
    expect(seen(install.tsserver)).toBe(true);
    expect(seen(path.join(home, 'web-token'))).toBe(false);
    expect(seen(path.join(home, 'state', 'keys.ts'))).toBe(false);
    expect(seen(home)).toBe(false);
    // Of the system, programs and libraries alone: no users, hosts or certificates.
    expect(seen('/usr/bin/env')).toBe(true);
    expect(seen('/etc/passwd')).toBe(false);
    // Read-only: not even the server's own project folder can be changed.
    expect(await readFile(`/proc/${server}/mountinfo`, 'utf8')).toMatch(new RegExp(` ${workspace} [^\\n]*\\bro\\b`));
    expect(await networkOf(server!)).not.toBe(await networkOf('self'));
    for (const pid of await processTree(running!.pid!)) {
      const environment = await environOf(pid);
      const text = [...environment.entries()].join('\n');
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret);
      // The allowlist, what the sandbox sets, and what the server adds for its tsserver (its
      // module path and the IPC channel of `fork`).
      const expected = (name: string) => ['PATH', 'LANG', 'HOME', 'TMPDIR', 'PWD', 'NODE_PATH'].includes(name) || name.startsWith('NODE_CHANNEL_');
      expect([...environment.keys()].filter((name) => !expected(name))).toEqual([]);
      expect(environment.get('HOME')).toBe('/tmp');
    }
  });

  it("cannot show what is in OPERATOR_HOME's files: a hover on an import from state/ shows no value", async () => {
    const main = `import { launch } from '${path.join(home, 'state', 'keys.js')}';\nexport const copy = launch;\n`;
    const workspace = await folderWith({ 'tsconfig.json': tsconfig, 'src/main.ts': main });
    const tool = createCodeTool({ servers: poolIn(sandbox), hidden: privatePaths(home) });
    const call = (args: Record<string, unknown>) => callTool(tool, args, { cwd: workspace, turn: turnIn([workspace]) });
    const hover = textOf(await call({ action: 'hover', path: 'src/main.ts', line: 2, symbol: 'copy' }));
    expect(hover).toContain('const copy: any');
    const diagnostics = textOf(await call({ action: 'diagnostics', path: 'src/main.ts' }));
    expect(diagnostics).toContain('TS2307');
    for (const text of [hover, diagnostics, textOf(await call({ action: 'definition', path: 'src/main.ts', line: 1, symbol: 'launch' }))]) {
      expect(text).not.toContain(secrets.state);
    }
  });
  it("reads the file asked about through the turn's file worker: a file the worker's sandbox hides is not read, even where the tool's own check lets it through", async () => {
    const key = 'WORKER-HIDDEN-code-sandbox-Lynx-3310';
    const workspace = await folderWith({ 'tsconfig.json': tsconfig, 'src/index.ts': 'export const answer: number = 42;\n', 'src/secret.ts': `export const key = '${key}';\n` });
    const files = new FileAccess({ sandbox, hidden: [path.join(workspace, 'src', 'secret.ts')] });
    try {
      const tool = createCodeTool({ servers: poolIn(sandbox), files });
      const call = (args: Record<string, unknown>) => callTool(tool, args, { cwd: workspace, turn: turnIn([workspace]) });
      expect(textOf(await call({ action: 'hover', path: 'src/index.ts', line: 1, symbol: 'answer' }))).toContain('const answer: number');
      const hidden = await call({ action: 'diagnostics', path: 'src/secret.ts' });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden)).toMatch(/^Error: (permission denied|file not found): src\/secret\.ts$/);
      expect(textOf(await call({ action: 'hover', path: 'src/secret.ts', line: 1, symbol: 'key' }))).not.toContain(key);
    } finally {
      files.closeAll();
    }
  });
});

describe('the code tool runs only operator\'s own server and TypeScript', { timeout: 60_000 }, () => {
  let home: string;
  beforeAll(async () => {
    home = await makeHome();
  });

  /** A project with a planted tsserver, a planted server and a planted `.bin` entry, each writing `marker` when run. */
  async function plantedProject(marker: string): Promise<string> {
    const plant = `require('fs').writeFileSync(${JSON.stringify(marker)}, JSON.stringify(process.env));\nprocess.exit(0);\n`;
    return folderWith({
      'package.json': '{"name":"planted","private":true,"type":"module"}',
      'tsconfig.json': tsconfig,
      'src/index.ts': 'export const answer: number = 42;\n',
      'node_modules/typescript/package.json': '{"name":"typescript","version":"9.9.9","main":"lib/typescript.js"}',
      'node_modules/typescript/lib/tsserver.js': plant,
      'node_modules/typescript/lib/typescript.js': plant,
      'node_modules/typescript-language-server/package.json': '{"name":"typescript-language-server","version":"9.9.9","bin":{"typescript-language-server":"lib/cli.mjs"}}',
      'node_modules/typescript-language-server/lib/cli.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'planted server');\n`,
      'node_modules/.bin/typescript-language-server': `#!/bin/sh\necho planted > ${JSON.stringify(marker)}\n`,
      'node_modules/.bin/tsserver': `#!/bin/sh\necho planted > ${JSON.stringify(marker)}\n`,
      'node_modules/.bin/node': `#!/bin/sh\necho planted > ${JSON.stringify(marker)}\n`,
    });
  }

  for (const kind of ['bubblewrap', 'none'] as const) {
    it(`never runs a planted tsserver.js, server or node_modules/.bin entry (sandbox: ${kind})`, async () => {
      const outside = await makeTempDir('operator-code-outside-');
      const marker = path.join(outside, 'planted-ran');
      const workspace = await plantedProject(marker);
      // The workspace's .bin first on the search path, as `npm run` in the project would have it.
      const binFirst = { ...env, PATH: `${path.join(workspace, 'node_modules', '.bin')}:${env.PATH}` };
      const sandbox = kind === 'bubblewrap' ? sandboxFor(home, binFirst) : undefined;
      const servers = poolIn(sandbox, { env: binFirst });
      expect(servers.isolation).toBe(kind);
      const tool = createCodeTool({ servers });
      const turn = turnIn([workspace]);
      const hover = await callTool(tool, { action: 'hover', path: 'src/index.ts', line: 1, symbol: 'answer' }, { cwd: workspace, turn });
      expect(existsSync(marker)).toBe(false);
      expect(textOf(hover)).toContain('const answer: number');
      const typescript = await servers.use({ project: workspace, roots: [workspace] }, async (server) => server.typescript);
      expect(typescript).toEqual({ version: install.typescriptVersion, source: 'user-setting' });
    });
  }

  it('loads no tsserver plugin a tsconfig names, in the project or beside operator\'s TypeScript', async () => {
    const outside = await makeTempDir('operator-code-outside-');
    const marker = path.join(outside, 'plugin-ran');
    // A plugin that, once loaded, answers every hover with its own text (and tries to leave a marker).
    const plugin = `module.exports = () => ({
  create(info) {
    try { require('fs').writeFileSync(${JSON.stringify(marker)}, 'plugin'); } catch {}
    const proxy = Object.create(null);
    for (const [name, method] of Object.entries(info.languageService)) proxy[name] = (...args) => method.apply(info.languageService, args);
    proxy.getQuickInfoAtPosition = () => ({ kind: '', kindModifiers: '', textSpan: { start: 0, length: 1 }, displayParts: [{ kind: 'text', text: 'PLANTED-PLUGIN-RAN' }] });
    return proxy;
  },
});
`;
    // A workspace that holds operator's install (operator run from a folder above its checkout):
    // tsserver looks for plugins in the node_modules beside its own, which anyone with shell here
    // could write. The copy of TypeScript stands for operator's own.
    const workspace = await makeTempDir('operator-code-plugins-');
    await mkdir(path.join(workspace, 'node_modules'), { recursive: true });
    await cp(install.typescriptFolder, path.join(workspace, 'node_modules', 'typescript'), { recursive: true });
    const pluginConfig = JSON.stringify({ ...JSON.parse(tsconfig), compilerOptions: { ...JSON.parse(tsconfig).compilerOptions, plugins: [{ name: 'planted-plugin' }] } });
    await writeFiles(workspace, {
      'node_modules/planted-plugin/package.json': '{"name":"planted-plugin","version":"1.0.0","main":"index.js"}',
      'node_modules/planted-plugin/index.js': plugin,
      'app/tsconfig.json': pluginConfig,
      'app/src/index.ts': 'export const answer: number = 42;\n',
      'app/node_modules/planted-plugin/package.json': '{"name":"planted-plugin","version":"1.0.0","main":"index.js"}',
      'app/node_modules/planted-plugin/index.js': plugin,
    });
    const typescriptFolder = path.join(workspace, 'node_modules', 'typescript');
    const copied: ServerInstall = { ...install, typescriptFolder, tsserver: path.join(typescriptFolder, 'lib', 'tsserver.js') };
    for (const sandbox of [sandboxFor(home, env), undefined]) {
      const tool = createCodeTool({ servers: poolIn(sandbox, { install: copied }) });
      const hover = textOf(await callTool(tool, { action: 'hover', path: 'app/src/index.ts', line: 1, symbol: 'answer' }, { cwd: workspace, turn: turnIn([workspace]) }));
      expect(hover).toContain('const answer: number');
      expect(hover).not.toContain('PLANTED-PLUGIN-RAN');
      expect(existsSync(marker)).toBe(false);
    }
  }, 120_000);

  it('never lets a seat use a server started for a seat that sees more', async () => {
    const workspace = await folderWith({
      'app/tsconfig.json': tsconfig,
      'app/src/main.ts': "import { note } from '../../notes/note.js';\nexport const copy = note;\n",
      'notes/note.ts': "export const note = 'NOTE-ONLY-THE-WIDER-SEAT-READS';\n",
    });
    const servers = poolIn(sandboxFor(home, env));
    const tool = createCodeTool({ servers });
    const app = path.join(workspace, 'app');
    const hover = async (roots: string[]) => textOf(await callTool(tool, { action: 'hover', path: path.join(app, 'src', 'main.ts'), line: 2, symbol: 'copy' }, { cwd: roots[0]!, turn: turnIn(roots) }));
    expect(await hover([workspace])).toContain('NOTE-ONLY-THE-WIDER-SEAT-READS');
    const narrower = await hover([app]);
    expect(narrower).toContain('const copy: any');
    expect(narrower).not.toContain('NOTE-ONLY-THE-WIDER-SEAT-READS');
    expect(servers.list().map((server) => server.roots).sort()).toEqual([[workspace], [app]]);
    // The wider seat still gets its own server's answer.
    expect(await hover([workspace])).toContain('NOTE-ONLY-THE-WIDER-SEAT-READS');
    expect(servers.list()).toHaveLength(2);
  });
});
