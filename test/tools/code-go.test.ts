/**
 * The `code` tool on Go, through the real tool and the machine's real `gopls` and `go` (Debian
 * bookworm's gopls and golang-go; `.ci/run` installs both) in the real bubblewrap sandbox, as the
 * owner's seat runs it: a copy of `test/fixtures/code-go`, the module `example.com/shapes` with
 * no dependency outside the standard library (nothing can be downloaded): a package `shapes` of
 * two files, and a package `report` importing it, one of whose files has a type error and an
 * undefined name. Also what goes wrong: a gopls with no `go` to run, none at all, a Go file in no
 * module, and a module needing one that is not there. The refusals for seats without `shell` are
 * the runtime's (`code-tool-runtime.test.ts`), the same for every language.
 */
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLanguageServers } from '../../src/cli/doctor/language-servers.ts';
import { lspReport } from '../../src/gateway/lsp-command.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { findGoToolchain } from '../../src/tools/code/go-toolchain.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import { findProgram, sandboxPath } from '../../src/tools/code/program-files.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { standInServer } from '../helpers/stand-in-server.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { environOf, folderWith } from './code-server-harness.ts';
import { expectConfined, fixtureSuite } from './installed-server-suite.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool, textOf } from './tool-harness.ts';

const home = createTempHome('operator-code-go-home-');
/** A secret in operator's own environment: the server must not get it. */
const env = { PATH: process.env.PATH, HOME: process.env.HOME, TELEGRAM_BOT_TOKEN: '123456:fake-token-for-the-go-test' };

afterAll(() => removeTempHome(home));

const gopls = findProgram('gopls', sandboxPath(env));
const go = findGoToolchain(env);
const needed = { program: 'gopls and go on PATH', install: 'apt-get install -y gopls golang-go', runs: "the code tool's Go tests" };

whenInstalled(gopls !== undefined && go !== undefined ? gopls : undefined, { suite: 'code tool on Go (gopls)', ...needed }, (gopls) => {
  describe('code tool on Go (gopls)', { timeout: 60_000 }, () => {
    const suite = fixtureSuite('code-go', home, env);
    const call = (args: Record<string, unknown>, cwd?: string) => suite.call(args, cwd);

    it('is listed by /lsp as found and driven (no "found; not driven" note), and by operator doctor', async () => {
      const line = `Go: gopls (golang.org/x/tools/gopls master) at ${gopls}`;
      expect((await lspReport(suite.servers)).split('\n')).toContain(`- ${line}`);
      const doctor = await checkLanguageServers(defaultSandboxSettings, { ...env, OPERATOR_HOME: home });
      expect(doctor.detail.split('; ')).toContain(line);
    });

    it('definition jumps to the function in the imported package, in another file of its own package, and into the standard library', async () => {
      const output = await call({ action: 'definition', path: 'report/report.go', line: 12, symbol: 'Area' });
      expect(output.isError).toBeUndefined();
      expect(textOf(output)).toBe('shapes/area.go:5:6  func Area(width, height float64) float64 {');
      expect(textOf(await call({ action: 'definition', path: 'shapes/square.go', line: 5, symbol: 'Area' }))).toBe('shapes/area.go:5:6  func Area(width, height float64) float64 {');
      // Into the standard library, outside the workspace: its path alone.
      const println = textOf(await call({ action: 'definition', path: 'report/report.go', line: 13, symbol: 'Println' }));
      expect(println.startsWith(`${path.join(go!.root!, 'src', 'fmt', 'print.go')}:`)).toBe(true);
      expect(println).toMatch(/:\d+:6 \(outside the workspace\)$/);
    });

    it('runs gopls in bubblewrap for the module: no network, no secret, OPERATOR_HOME unseen, the workspace read-only, Go offline with its caches private', async () => {
      const { pid: server, seen } = await expectConfined(suite, 'Go', 'gopls', home, env.TELEGRAM_BOT_TOKEN);
      expect(seen(path.join(suite.project, 'shapes', 'area.go'))).toBe(true);
      // go, and the standard library's sources it loads.
      expect(seen(go!.command)).toBe(true);
      expect(go!.root).toBeDefined();
      expect(seen(path.join(go!.root!, 'src', 'fmt', 'print.go'))).toBe(true);
      const environ = await environOf(server);
      expect(Object.fromEntries(['GOPROXY', 'GOPATH', 'GOCACHE', 'GOTOOLCHAIN', 'GOFLAGS'].map((name) => [name, environ.get(name)]))).toEqual({
        GOPROXY: 'off',
        GOPATH: '/tmp/go',
        GOCACHE: '/tmp/go-build',
        GOTOOLCHAIN: 'local',
        GOFLAGS: '',
      });
      // go list built its cache in the sandbox's own /tmp.
      expect(seen('/tmp/go-build')).toBe(true);
    });

    it('references lists the declaration, the call in its own package and the one in the importing package', async () => {
      const lines = textOf(await call({ action: 'references', path: 'shapes/area.go', line: 5, symbol: 'Area' })).split('\n');
      expect(lines[0]).toBe('3 references to `Area` at shapes/area.go:5:');
      expect(lines.slice(1).sort()).toEqual([
        'report/report.go:12:18  total := shapes.Area(2, 3)',
        'shapes/area.go:5:6  func Area(width, height float64) float64 {',
        'shapes/square.go:5:9  return Area(side, side)',
      ]);
    });

    it('hover shows the signature and the doc comment, with no link to follow', async () => {
      const text = textOf(await call({ action: 'hover', path: 'report/report.go', line: 12, symbol: 'Area' }));
      expect(text).toContain('func shapes.Area(width float64, height float64) float64');
      expect(text).toContain('Area is the area of a width by height rectangle.');
      expect(text).not.toContain('pkg.go.dev');
    });

    it("diagnostics are the compiler's: a type error and an undefined name, nothing in a clean file, the file as it is now after an edit, and no go vet findings", async () => {
      expect(textOf(await call({ action: 'diagnostics', path: 'report/broken.go' })).split('\n')).toEqual([
        'report/broken.go:6:20 error compiler IncompatibleAssign cannot use shapes.Square(1) (value of type float64) as string value in variable declaration',
        'report/broken.go:7:16 error compiler UndeclaredName undeclared name: missingName',
      ]);
      expect(textOf(await call({ action: 'diagnostics', path: 'report/report.go' }))).toBe('No compile errors gopls finds in report/report.go.');
      // Asked again without a change: the last report, without waiting for another.
      expect(textOf(await call({ action: 'diagnostics', path: 'report/report.go' }))).toBe('No compile errors gopls finds in report/report.go.');
      await writeFile(path.join(suite.project, 'report', 'broken.go'), 'package report\n\nfunc broken() int {\n\treturn "s"\n}\n');
      expect(textOf(await call({ action: 'diagnostics', path: 'report/broken.go' }))).toBe(
        'report/broken.go:4:9 error compiler IncompatibleAssign cannot use "s" (untyped string constant) as int value in return statement',
      );
      // A format go vet would question compiles: not reported (gopls's analyzers are off).
      await writeFile(path.join(suite.project, 'report', 'broken.go'), 'package report\n\nimport "fmt"\n\nfunc broken() {\n\tfmt.Printf("%d\\n", "text")\n}\n');
      expect(textOf(await call({ action: 'diagnostics', path: 'report/broken.go' }))).toBe('No compile errors gopls finds in report/broken.go.');
    });

    it('sees files changed on disk that it was never sent: one made, one edited, one removed', async () => {
      await writeFile(path.join(suite.project, 'shapes', 'cube.go'), 'package shapes\n\n// Cube is the volume of a cube.\nfunc Cube(side float64) float64 {\n\treturn side * Square(side)\n}\n');
      await writeFile(path.join(suite.project, 'report', 'volume.go'), 'package report\n\nimport "example.com/shapes/shapes"\n\nfunc volume() float64 {\n\treturn shapes.Cube(2)\n}\n');
      expect(textOf(await call({ action: 'definition', path: 'report/volume.go', line: 6, symbol: 'Cube' }))).toBe('shapes/cube.go:4:6  func Cube(side float64) float64 {');
      expect(textOf(await call({ action: 'diagnostics', path: 'report/volume.go' }))).toBe('No compile errors gopls finds in report/volume.go.');
      // cube.go itself is never sent to gopls: it reads it from disk.
      const box = 'package shapes\n\n// Cube is the volume of a box.\nfunc Cube(width, depth float64) float64 {\n\treturn width * Square(depth)\n}\n';
      await writeFile(path.join(suite.project, 'shapes', 'cube.go'), box);
      expect(textOf(await call({ action: 'hover', path: 'report/volume.go', line: 6, symbol: 'Cube' }))).toContain('func shapes.Cube(width float64, depth float64) float64');
      // Written again at once with the same size: still told (see `disk-changes.ts`).
      await writeFile(path.join(suite.project, 'shapes', 'cube.go'), box.replaceAll('width', 'broad'));
      expect(textOf(await call({ action: 'hover', path: 'report/volume.go', line: 6, symbol: 'Cube' }))).toContain('func shapes.Cube(broad float64, depth float64) float64');
      expect(textOf(await call({ action: 'diagnostics', path: 'report/volume.go' }))).toBe(
        'report/volume.go:6:22 error compiler WrongArgCount not enough arguments in call to shapes.Cube have (number) want (float64, float64)',
      );
      await rm(path.join(suite.project, 'shapes', 'cube.go'));
      expect(textOf(await call({ action: 'diagnostics', path: 'report/volume.go' }))).toBe('report/volume.go:6:16 error compiler UndeclaredImportedName Cube not declared by package shapes');
      await rm(path.join(suite.project, 'report', 'volume.go'));
    });

    it('refuses a Go file in no module (no go.mod at or above it), and starts nothing for it', async () => {
      const loose = await folderWith({ 'loose.go': 'package loose\n' }, 'operator-code-go-loose-');
      expect(textOf(await call({ action: 'diagnostics', path: 'loose.go' }, loose))).toBe(
        'Error: loose.go is not in a project: no go.mod in its folder or above it inside the workspace. The code tool starts the Go language server only for a project folder.',
      );
      expect(suite.servers.list().map((server) => server.root)).not.toContain(loose);
    });

    it('says so when the module imports a package of a module that is not there (nothing is downloaded)', async () => {
      await mkdir(path.join(suite.project, 'fetch'));
      await writeFile(path.join(suite.project, 'fetch', 'fetch.go'), 'package fetch\n\nimport "github.com/google/uuid"\n\nvar ID = uuid.New()\n');
      const text = textOf(await call({ action: 'diagnostics', path: 'fetch/fetch.go' }));
      expect(text).toBe('fetch/fetch.go:3:8 error compiler BrokenImport could not import github.com/google/uuid (no required module provides package "github.com/google/uuid")');
    });
  });
});

whenInstalled(gopls, { suite: 'code tool on Go: what goes wrong', ...needed, program: 'gopls on PATH' }, (gopls) => {
  describe('code tool on Go: what goes wrong', { timeout: 60_000 }, () => {
    it('says what is missing: no go for gopls to run, and no gopls at all', async () => {
      const project = await folderWith({ 'main.go': 'package main\n\nfunc main() {}\n', 'go.mod': 'module example.com/app\n\ngo 1.19\n' }, 'operator-code-go-');
      const bin = await folderWith({}, 'operator-code-go-bin-');
      await symlink(gopls, path.join(bin, 'gopls'));
      const noGo = { PATH: bin, HOME: home };
      const servers = new LanguageServers({ sandbox: sandboxFor(home, noGo), env: noGo });
      try {
        const tool = createCodeTool({ servers });
        expect(textOf(await callTool(tool, { action: 'diagnostics', path: 'main.go' }, { cwd: project }))).toBe(
          `Error: main.go: Go files need a Go language server. Go: gopls at ${bin}/gopls, but it runs go, and there is none on PATH (apt-get install golang-go).`,
        );
        expect((await checkLanguageServers(defaultSandboxSettings, { ...noGo, OPERATOR_HOME: home })).fix).toBe('Go: apt-get install gopls golang-go, or go install golang.org/x/tools/gopls@latest');
        // The pool itself refuses it, and started nothing.
        await expect(servers.use({ project, roots: [project], language: 'go' }, async () => 'ran')).rejects.toThrow('the code tool drives no Go language server here');
        expect(servers.list()).toEqual([]);
      } finally {
        await servers.closeAll();
      }
      const none = { PATH: await folderWith({}, 'operator-code-go-empty-'), HOME: home };
      const bare = new LanguageServers({ sandbox: sandboxFor(home, none), env: none });
      try {
        const tool = createCodeTool({ servers: bare });
        expect(textOf(await callTool(tool, { action: 'hover', path: 'main.go', line: 3, symbol: 'main' }, { cwd: project }))).toBe(
          'Error: main.go: Go files need a Go language server (gopls), and none is installed here (apt-get install gopls golang-go, or go install golang.org/x/tools/gopls@latest).',
        );
      } finally {
        await bare.closeAll();
      }
    });
  });
});

/**
 * A stand-in `gopls` that answers `version` and `initialize` (and every other request with
 * nothing), and reports on each text it is sent, naming its version: on a change, first a late
 * report on the text before it, then one on the text sent, as gopls may.
 */
const lateServer = standInServer({
  versionArgument: 'version',
  version: 'golang.org/x/tools/gopls v0.0-late',
  onMessage: String.raw`
def report(uri, version):
    place = {'start': {'line': 0, 'character': 0}, 'end': {'line': 0, 'character': 7}}
    found = {'range': place, 'severity': 1, 'source': 'stand-in', 'message': 'report on version %d' % version}
    send({'jsonrpc': '2.0', 'method': 'textDocument/publishDiagnostics', 'params': {'uri': uri, 'version': version, 'diagnostics': [found]}})
document = message.get('params', {}).get('textDocument', {})
if method == 'textDocument/didOpen':
    report(document['uri'], document['version'])
if method == 'textDocument/didChange':
    report(document['uri'], document['version'] - 1)
    report(document['uri'], document['version'])
`,
});

describe('code tool on Go: a late report', { timeout: 60_000 }, () => {
  it('takes the report on the text last sent, not one on the text before that comes after the change', async () => {
    // The stand-in runs no go; one on PATH is all gopls is asked to have.
    const bin = await folderWith({ 'gopls': lateServer, 'go': '#!/bin/sh\nexit 1\n' }, 'operator-code-go-late-');
    await chmod(path.join(bin, 'gopls'), 0o755);
    await chmod(path.join(bin, 'go'), 0o755);
    const project = await folderWith({ 'go.mod': 'module example.com/app\n\ngo 1.19\n', 'app.go': 'package app\n' }, 'operator-code-go-');
    const lateEnv = { PATH: bin, HOME: home };
    // A go that is not in a Go install's bin: its folder is shown to the server, not the one above.
    expect(findGoToolchain(lateEnv)).toEqual({ command: path.join(bin, 'go') });
    const servers = new LanguageServers({ sandbox: sandboxFor(home, lateEnv), env: lateEnv });
    try {
      const tool = createCodeTool({ servers });
      const diagnostics = async () => textOf(await callTool(tool, { action: 'diagnostics', path: 'app.go' }, { cwd: project }));
      expect(await diagnostics()).toBe('app.go:1:1 error stand-in report on version 1');
      await writeFile(path.join(project, 'app.go'), 'package app\n\nvar X = 1\n');
      expect(await diagnostics()).toBe('app.go:1:1 error stand-in report on version 2');
      expect(servers.list()).toMatchObject([{ language: 'Go', root: project }]);
    } finally {
      await servers.closeAll();
    }
  });
});
