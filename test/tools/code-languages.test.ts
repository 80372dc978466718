/**
 * The code tool's languages: which language servers the machine has, found where the gateway
 * looks and asked `--version` in the real bubblewrap sandbox (a rustup proxy without its component
 * is named with what it said, one not executable is not counted, a gopls with no `go` to run is
 * said not to run), and the `code` tool's answer for a file of each language: TypeScript's server
 * is driven (see `code-tool.test.ts`), Python's `pylsp` and Go's `gopls` where they are installed
 * (see `code-python.test.ts`, `code-go.test.ts`); for the others, a clear message of what is
 * missing or not driven.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLanguageServers } from '../../src/cli/doctor/language-servers.ts';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { describeServer, findLanguageServers } from '../../src/tools/code/installed-servers.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { writeServerFixtures } from '../helpers/language-server-fixtures.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool, textOf } from './tool-harness.ts';

let machineHome: string;
let operatorHome: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  machineHome = createTempHome('operator-lsp-machine-');
  operatorHome = createTempHome('operator-lsp-home-');
  const secret = path.join(operatorHome, 'web-token');
  writeFileSync(secret, 'secret');
  const bin = writeServerFixtures(machineHome, secret);
  env = { PATH: bin, HOME: machineHome, OPERATOR_HOME: operatorHome };
});
afterAll(() => {
  removeTempHome(machineHome);
  removeTempHome(operatorHome);
});

describe("the code tool's language servers", { timeout: 30_000 }, () => {
  it('finds them on PATH and in ~/.cargo/bin, and asks each --version in the sandbox', async () => {
    const sandbox = sandboxFor(operatorHome, env);
    expect(sandbox.kind).toBe('bubblewrap');
    const found = await findLanguageServers({ sandbox, env });
    expect(found.map((status) => [status.kind.id, status.state])).toEqual([
      ['typescript', 'ready'],
      ['rust', 'broken'],
      ['python', 'ready'],
      ['go', 'broken'],
    ]);
    const [typescript, rust, python, go] = found.map(describeServer);
    expect(typescript).toMatch(/^TypeScript and JavaScript: typescript-language-server \(TypeScript \d+\.\d+\.\d+\)$/);
    // The proxy read rustup's settings: the sandbox showed it rustup's home, read-only.
    expect(rust).toBe(
      `Rust: rust-analyzer at ${machineHome}/.cargo/bin/rust-analyzer, but it does not run here: error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.`,
    );
    // pylsp is there but not executable: not counted; pyright-langserver answered from inside the
    // sandbox, where OPERATOR_HOME is hidden.
    expect(python).toBe(`Python: pyright-langserver (pyright 1.1.408) at ${machineHome}/bin/pyright-langserver`);
    // gopls answered `version`, but it would run `go`, and PATH has none.
    expect(go).toBe(`Go: gopls at ${machineHome}/bin/gopls, but it runs go, and there is none on PATH (apt-get install golang-go)`);
  });

  it('answers for a file of each language: what is missing, what does not run, and what is not driven yet', async () => {
    const project = path.join(machineHome, 'project');
    mkdirSync(project, { recursive: true });
    for (const file of ['main.rs', 'app.py', 'main.go', 'notes.md']) writeFileSync(path.join(project, file), '\n');
    const servers = new LanguageServers({ sandbox: sandboxFor(operatorHome, env), env });
    const tool = createCodeTool({ servers });
    const call = async (file: string) => textOf(await callTool(tool, { action: 'diagnostics', path: file }, { cwd: project }));
    expect(await call('app.py')).toBe(
      `Error: app.py: Python: pyright-langserver (pyright 1.1.408) at ${machineHome}/bin/pyright-langserver is installed, but the code tool drives only the TypeScript language server, Python's pylsp and Go's gopls so far.`,
    );
    expect(await call('main.rs')).toBe(
      `Error: main.rs: Rust files need a Rust language server. Rust: rust-analyzer at ${machineHome}/.cargo/bin/rust-analyzer, but it does not run here: error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.`,
    );
    expect(await call('main.go')).toBe(
      `Error: main.go: Go files need a Go language server. Go: gopls at ${machineHome}/bin/gopls, but it runs go, and there is none on PATH (apt-get install golang-go).`,
    );
    expect(await call('notes.md')).toBe(
      'Error: notes.md: the code tool reads TypeScript and JavaScript, Rust, Python, Go files (.ts, .mts, .cts, .tsx, .js, .mjs, .cjs, .jsx, .rs, .py, .pyi, .go), not .md files',
    );
    // Nothing started for them.
    expect(servers.list()).toEqual([]);
    await servers.closeAll();
  });

  it('operator doctor: OK with TypeScript, a warning for a server that does not run, and for no TypeScript server', async () => {
    const withBroken = await checkLanguageServers(defaultSandboxSettings, env);
    expect(withBroken).toMatchObject({
      level: 'WARN',
      name: 'Language servers',
      fix: 'Rust: rustup component add rust-analyzer; Go: apt-get install gopls golang-go, or go install golang.org/x/tools/gopls@latest',
    });
    expect(withBroken.detail).toContain('TypeScript and JavaScript: typescript-language-server (TypeScript ');
    expect(withBroken.detail).toContain('Python: pyright-langserver (pyright 1.1.408)');
    expect(withBroken.detail).toContain('Go: gopls at ');
    const clean = { ...env, HOME: operatorHome, PATH: '' };
    const ok = await checkLanguageServers(defaultSandboxSettings, clean);
    expect(ok.level).toBe('OK');
    expect(ok.detail).toMatch(/^TypeScript and JavaScript: typescript-language-server \(TypeScript [\d.]+\); Rust: none installed \(rustup component add rust-analyzer\); Python: none installed .*; Go: none installed .*$/);
    const none = await checkLanguageServers(defaultSandboxSettings, clean, null);
    expect(none).toMatchObject({ level: 'WARN', fix: expect.stringContaining('the code tool is not offered without the TypeScript server') });
    expect(none.detail).toContain('TypeScript and JavaScript: none installed');
  });
});
