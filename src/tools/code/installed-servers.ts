/**
 * Which language servers this machine has, for the `code` tool, `/lsp` and `operator doctor`:
 * TypeScript's is operator's own (see `server-install.ts`); another language's is the first of its
 * programs (see `server-kinds.ts`) found on the gateway's `PATH` or in `~/.cargo/bin` or
 * `~/go/bin`, and counted only once it answered `--version` (gopls: `version`) in the sandbox the
 * servers run in, and the program it runs is on `PATH` (gopls runs `go`). A program that is there
 * but does not run, such as rustup's `rust-analyzer` without its component, is named with what it
 * said. Nothing here runs a path the model chose.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { runCommand } from '../builtin/run-command.ts';
import type { Sandbox, SandboxProgram } from '../sandbox/sandbox.ts';
import { findGoToolchain, goEnvironment } from './go-toolchain.ts';
import { findProgram, sandboxPath } from './program-files.ts';
import { serverInstall, type ServerInstall } from './server-install.ts';
import { serverKinds, type ServerKind } from './server-kinds.ts';

/** How one language stands. */
export interface ServerStatus {
  kind: ServerKind;
  /** `ready`: it answered; `broken`: found but it does not run here; `missing`: none found. */
  state: 'ready' | 'broken' | 'missing';
  /** The program found (its path as found, not resolved). */
  path?: string;
  /** What `--version` said (ready), or why it does not run (broken). */
  detail?: string;
}

/** Options of {@link findLanguageServers}. */
export interface FindServersOptions {
  /** Where the probes run: the sandbox the servers run in. */
  sandbox: Sandbox;
  /** The gateway's environment: its `PATH` and `HOME` say where to look. */
  env: NodeJS.ProcessEnv;
  /** TypeScript's install; default operator's own (see `serverInstall`). Null: none. */
  install?: ServerInstall | null;
  /** Longest wait for one `--version`, in ms. Default 15 s. */
  timeoutMs?: number;
}

/** Every language with how its server stands, TypeScript first; the probes run side by side. */
export async function findLanguageServers(options: FindServersOptions): Promise<ServerStatus[]> {
  return Promise.all(serverKinds.map((kind) => statusOf(kind, options)));
}

async function statusOf(kind: ServerKind, options: FindServersOptions): Promise<ServerStatus> {
  if (kind.programs.length === 0) {
    const install = options.install === undefined ? serverInstall() : (options.install ?? undefined);
    return install ? { kind, state: 'ready', path: install.script, detail: `TypeScript ${install.typescriptVersion}` } : { kind, state: 'missing' };
  }
  const folders = searchFolders(options.env);
  let broken: ServerStatus | undefined;
  for (const program of kind.programs) {
    const found = findProgram(program, folders);
    if (found === undefined) continue;
    const answer = await probe(found, kind.versionArguments?.[program] ?? ['--version'], options);
    // Looked for where the sandbox's programs look: its PATH, the gateway's.
    const lacking = answer.ok && kind.needs !== undefined && findProgram(kind.needs.program, sandboxPath(options.env)) === undefined;
    if (answer.ok && !lacking) return { kind, state: 'ready', path: found, detail: answer.text };
    broken ??= { kind, state: 'broken', path: found, detail: lacking ? `it runs ${kind.needs!.program}, and there is none on PATH (${kind.needs!.install})` : answer.text };
  }
  return broken ?? { kind, state: 'missing' };
}

/** The gateway's `PATH`, then the folders language toolchains install into. */
function searchFolders(env: NodeJS.ProcessEnv): string[] {
  const home = env['HOME'] || homedir();
  const fromPath = (env['PATH'] ?? '').split(path.delimiter).filter((folder) => path.isAbsolute(folder));
  return [...new Set([...fromPath, path.join(home, '.cargo', 'bin'), path.join(home, 'go', 'bin')])];
}

/**
 * The program, as the sandbox runs it: its own folder (and the folder it really lives in) read-only.
 * A rustup proxy (`~/.cargo/bin/rust-analyzer` linked to `rustup`) also reads rustup's toolchains;
 * gopls also runs `go`, which reads its install (see `go-toolchain.ts`).
 */
export function serverProgramOf(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): SandboxProgram {
  const real = realpathSync(file);
  const readOnly = new Set([path.dirname(file), path.dirname(real)]);
  const extraEnv: Record<string, string> = {};
  if (path.basename(real) === 'rustup') {
    const cargoHome = env['CARGO_HOME'] || path.dirname(path.dirname(file));
    const rustupHome = env['RUSTUP_HOME'] || path.join(env['HOME'] || homedir(), '.rustup');
    readOnly.add(cargoHome).add(rustupHome);
    Object.assign(extraEnv, { CARGO_HOME: cargoHome, RUSTUP_HOME: rustupHome });
  }
  if (path.basename(real) === 'gopls') {
    const go = findGoToolchain(env);
    if (go) readOnly.add(path.dirname(go.command));
    if (go?.root) readOnly.add(go.root);
    Object.assign(extraEnv, goEnvironment);
  }
  return { argv: [file, ...args], cwd, writable: [], readOnly: [...readOnly], network: false, env: extraEnv, system: 'minimal' };
}

/** Runs `file --version` (or `file ...versionArguments`) in the sandbox: its first line, or why it did not answer. */
async function probe(file: string, versionArguments: readonly string[], options: FindServersOptions): Promise<{ ok: boolean; text: string }> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  try {
    const spawn = options.sandbox.programSpec(serverProgramOf(file, versionArguments, '/', options.env));
    const result = await runCommand({ spawn, timeoutMs, signal: new AbortController().signal, maxOutputChars: 4_000 });
    const said = (text: string) => text.trim().split('\n').map((line) => line.trim()).filter((line) => line !== '');
    if (result.timedOut) return { ok: false, text: `did not answer ${versionArguments.join(' ')} within ${timeoutMs / 1000} s` };
    if (result.exitCode === 0 && said(result.stdout).length > 0) return { ok: true, text: said(result.stdout)[0]!.slice(0, 200) };
    const why = said(result.stderr)[0] ?? said(result.stdout)[0] ?? `exit code ${result.exitCode}`;
    return { ok: false, text: `it does not run here: ${why.slice(0, 300)}` };
  } catch (error) {
    return { ok: false, text: `it could not be started: ${errorMessage(error)}` };
  }
}

/** One line per language, for `/lsp` and `operator doctor`: `Rust: rust-analyzer at ... does not run here: ...`. */
export function describeServer(status: ServerStatus): string {
  const name = status.path ? path.basename(status.path) : undefined;
  if (status.state === 'ready') return `${status.kind.language}: ${name === undefined || status.kind.programs.length === 0 ? 'typescript-language-server' : name} (${status.detail})${status.kind.programs.length === 0 ? '' : ` at ${status.path}`}`;
  if (status.state === 'broken') return `${status.kind.language}: ${name} at ${status.path}, but ${status.detail}`;
  return `${status.kind.language}: none installed (${status.kind.install})`;
}
