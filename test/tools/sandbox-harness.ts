/**
 * Helpers for the sandbox tests: a fake OPERATOR_HOME beside (or inside) a workspace, the
 * `shell` tool run through a real sandbox with a turn's workspace, and the host's view of its
 * processes.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createShellTool } from '../../src/tools/builtin/shell.ts';
import { createSandbox } from '../../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import type { Sandbox, SandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import type { ToolContext } from '../../src/tools/tool.ts';
import { callTool, makeTempDir, textOf } from './tool-harness.ts';

/** The control token and a stored message in the fake OPERATOR_HOME; no command may print them. */
export const controlToken = 'control-token-7f3a9c1e5b';
export const storedMessage = 'STORED-DM-launch-code-PELICAN';

/** Folders of one test: OPERATOR_HOME, the workspace, and a folder outside both. */
export interface SandboxWorld {
  home: string;
  workspace: string;
  outside: string;
  /** The conversation's own folder inside OPERATOR_HOME, a workspace root. */
  conversation: string;
}

/**
 * Makes an OPERATOR_HOME with `state/`, `gateway.json` and a conversation folder, a workspace
 * with a file, and a folder outside both. With `homeInWorkspace` OPERATOR_HOME is
 * `<workspace>/.operator`, as when the gateway runs in its own home.
 */
export async function makeWorld(options: { homeInWorkspace?: boolean } = {}): Promise<SandboxWorld> {
  const base = await makeTempDir('operator-sandbox-');
  const workspace = path.join(base, 'workspace');
  const home = options.homeInWorkspace ? path.join(workspace, '.operator') : path.join(base, 'operator-home');
  const outside = path.join(base, 'outside');
  const conversation = path.join(home, 'profiles', 'default', 'temp', 'telegram-group-1');
  for (const folder of [workspace, outside, path.join(home, 'state', 'sessions'), conversation]) mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(workspace, 'notes.txt'), 'workspace notes\n');
  writeFileSync(path.join(outside, 'elsewhere.txt'), 'outside the workspace\n');
  writeFileSync(path.join(home, 'gateway.json'), JSON.stringify({ pid: 1, url: 'http://127.0.0.1:8787', token: controlToken }));
  writeFileSync(path.join(home, 'state', 'sessions', 'telegram-dm-1.jsonl'), `{"text":"${storedMessage}"}\n`);
  writeFileSync(path.join(conversation, 'upload.txt'), 'a document sent in this conversation\n');
  return { home, workspace, outside, conversation };
}

/** A sandbox made as the runtime makes it, from the defaults with `overrides`. */
export function sandboxFor(home: string, env: NodeJS.ProcessEnv, overrides: Partial<SandboxSettings> = {}): Sandbox {
  return createSandbox({ ...defaultSandboxSettings, ...overrides }, { hidden: [home], env });
}

/** Runs `command` with the `shell` tool through `sandbox`, in a turn whose workspace is `roots` (cwd the first). */
export async function runIn(
  sandbox: Sandbox,
  command: string,
  roots: readonly string[],
  extra: Partial<ToolContext> & { timeoutMs?: number; cwd?: string } = {},
): Promise<{ text: string; isError: boolean }> {
  const { timeoutMs, cwd = roots[0]!, ...context } = extra;
  const turn = { sessionKey: 'telegram:group:1', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd, roots } };
  const output = await callTool(createShellTool({ sandbox, killGraceMs: 500 }), { command, timeout_ms: timeoutMs }, { cwd, turn, ...context });
  return { text: textOf(output), isError: output.isError === true };
}

/** Command lines of the host's processes (arguments joined by spaces). */
export function hostCommandLines(): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        return [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()];
      } catch {
        return [];
      }
    });
}

/** `value` as a command could print it: plain, base64 and hex. */
export function encodings(value: string): string[] {
  return [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex')];
}

/**
 * `text` and what its base64 and hex runs decode to: a secret inside a longer encoded stream
 * need not show as the encoding of the secret alone (base64 depends on where it starts).
 */
export function decodedForms(text: string): string[] {
  const forms = [text];
  for (const run of text.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) forms.push(Buffer.from(run.slice(shift), 'base64').toString('latin1'));
  }
  for (const run of text.match(/[0-9a-f]{16,}/g) ?? []) {
    forms.push(Buffer.from(run, 'hex').toString('latin1'), Buffer.from(run.slice(1), 'hex').toString('latin1'));
  }
  return forms;
}
