/**
 * The `code` tool on Python, through the real tool and the machine's real `pylsp` (Debian's
 * python3-pylsp, with python3-pyflakes; `.ci/run` installs both) in the real bubblewrap sandbox,
 * as the owner's seat runs it: a copy of `test/fixtures/code-python` (a module defining `area`,
 * one importing and calling it, one with an undefined name for pyflakes), a folder of scripts
 * with no project file (served with the workspace root as its project), and `/lsp`'s line for
 * Python. The refusals for seats without `shell` are the runtime's (`code-tool-runtime.test.ts`),
 * the same for every language.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLanguageServers } from '../../src/cli/doctor/language-servers.ts';
import { lspReport } from '../../src/gateway/lsp-command.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import { standInServer } from '../helpers/stand-in-server.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { folderWith } from './code-server-harness.ts';
import { expectConfined, fixtureSuite } from './installed-server-suite.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool, textOf } from './tool-harness.ts';

const home = createTempHome('operator-code-python-home-');
/** A secret in operator's own environment: the server must not get it. */
const env = { PATH: process.env.PATH, HOME: process.env.HOME, TELEGRAM_BOT_TOKEN: '123456:fake-token-for-the-python-test' };

afterAll(() => removeTempHome(home));

describe('code tool on Python (pylsp)', { timeout: 60_000 }, () => {
  const suite = fixtureSuite('code-python', home, env);
  const call = (args: Record<string, unknown>, cwd?: string) => suite.call(args, cwd);

  it('is listed by /lsp as found and driven (no "found; not driven" note), and by operator doctor', async () => {
    const lines = (await lspReport(suite.servers)).split('\n');
    expect(lines).toContain('- Python: pylsp (pylsp v1.7.1) at /usr/bin/pylsp');
    expect((await checkLanguageServers(defaultSandboxSettings, { ...env, OPERATOR_HOME: home })).detail).toContain('; Python: pylsp (pylsp v1.7.1) at /usr/bin/pylsp;');
  });

  it('definition jumps to the function in the other module, with its source line', async () => {
    const output = await call({ action: 'definition', path: 'main.py', line: 3, symbol: 'area' });
    expect(output.isError).toBeUndefined();
    expect(textOf(output)).toBe('shapes.py:1:5  def area(width, height):');
  });

  it('runs pylsp in bubblewrap for the project folder: no network, no secret, OPERATOR_HOME unseen, the workspace read-only', async () => {
    const { seen } = await expectConfined(suite, 'Python', 'pylsp', home, env.TELEGRAM_BOT_TOKEN);
    expect(seen(path.join(suite.project, 'shapes.py'))).toBe(true);
    expect(seen('/usr/bin/python3')).toBe(true);
  });

  it('references lists the definition, and the imports and calls in both modules that use it', async () => {
    const text = textOf(await call({ action: 'references', path: 'shapes.py', line: 1, symbol: 'area' }));
    const lines = text.split('\n');
    expect(lines[0]).toBe('5 references to `area` at shapes.py:1:');
    expect(lines.slice(1).sort()).toEqual([
      'broken.py:1:20  from shapes import area',
      'broken.py:3:7  print(area(1, missing_name))',
      'main.py:1:20  from shapes import area',
      'main.py:3:9  total = area(2, 3)',
      'shapes.py:1:5  def area(width, height):',
    ]);
  });

  it('hover shows the signature and the docstring', async () => {
    const text = textOf(await call({ action: 'hover', path: 'main.py', line: 3, symbol: 'area' }));
    expect(text).toContain('area(width, height)');
    expect(text).toContain('The area of a width by height rectangle.');
  });

  it("diagnostics are pyflakes': an undefined name, nothing in a clean file, and the file as it is now after an edit", async () => {
    expect(textOf(await call({ action: 'diagnostics', path: 'broken.py' }))).toBe("broken.py:3:15 error pyflakes undefined name 'missing_name'");
    expect(textOf(await call({ action: 'diagnostics', path: 'main.py' }))).toBe('No errors pyflakes finds in main.py.');
    // Asked again without a change: the last report, without waiting for another.
    expect(textOf(await call({ action: 'diagnostics', path: 'main.py' }))).toBe('No errors pyflakes finds in main.py.');
    await writeFile(path.join(suite.project, 'broken.py'), 'from shapes import area\n\nmissing_name = 4\nprint(area(1, missing_name))\n');
    expect(textOf(await call({ action: 'diagnostics', path: 'broken.py' }))).toBe('No errors pyflakes finds in broken.py.');
    await writeFile(path.join(suite.project, 'broken.py'), 'import os\n');
    expect(textOf(await call({ action: 'diagnostics', path: 'broken.py' }))).toBe("broken.py:1:1 warning pyflakes 'os' imported but unused");
  });

  it('serves a folder of scripts with no project file, with the workspace root as its project', async () => {
    const scripts = await folderWith({ 'tools/util.py': 'def greet(name):\n    return "hi " + name\n', 'run.py': 'from tools.util import greet\n\ngreet("x")\n' }, 'operator-code-scripts-');
    expect(textOf(await call({ action: 'definition', path: 'run.py', line: 3, symbol: 'greet' }, scripts))).toBe('tools/util.py:1:5  def greet(name):');
    expect(suite.servers.list().map((server) => [server.language, server.root])).toContainEqual(['Python', scripts]);
  });
});

/**
 * A stand-in `pylsp` that answers `--version` and `initialize` (and every other request with
 * nothing) but never reports a file's problems, as a server stuck linting would.
 */
const silentServer = standInServer({ versionArgument: '--version', version: 'pylsp v0.0-silent' });

describe('code tool on Python: what goes wrong', { timeout: 60_000 }, () => {
  it('says so when the server never reports a file\'s problems, and when a language is not driven', async () => {
    const bin = await folderWith({ 'pylsp': silentServer }, 'operator-code-silent-');
    await chmod(path.join(bin, 'pylsp'), 0o755);
    const project = await folderWith({ 'app.py': 'print(1)\n' }, 'operator-code-python-');
    const silentEnv = { PATH: bin, HOME: home };
    const servers = new LanguageServers({ sandbox: sandboxFor(home, silentEnv), env: silentEnv, requestTimeoutMs: 1_000 });
    try {
      const tool = createCodeTool({ servers });
      expect(textOf(await callTool(tool, { action: 'diagnostics', path: 'app.py' }, { cwd: project }))).toBe(
        `Error: the Python language server did not report the problems of ${path.join(project, 'app.py')} within 1 s`,
      );
      // It ran in the sandbox all the same.
      expect(servers.list()).toMatchObject([{ language: 'Python', root: project }]);
      expect(await readFile(`/proc/${servers.list()[0]!.pid}/comm`, 'utf8')).toBe('bwrap\n');
      // The pool itself refuses a language it does not drive (here none is installed).
      await expect(servers.use({ project, roots: [project], language: 'go' }, async () => 'ran')).rejects.toThrow('the code tool drives no Go language server here');
    } finally {
      await servers.closeAll();
    }
  });
});
