/**
 * Helpers for the `code` tool's tests: project folders on the real filesystem, and the host's
 * view of a language server's processes (the whole tree under the process spawned: bubblewrap's,
 * the server's, its tsserver's) through /proc.
 */
import { mkdir, readFile, readdir, readlink, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DocumentReader } from '../../src/tools/code/open-documents.ts';
import { makeTempDir } from './tool-harness.ts';

/** Open documents looked at on this process's own view of the disk (the tool itself uses the file worker). */
export const diskReader: DocumentReader = {
  async stamp(file) {
    const info = await stat(file, { bigint: true }).catch(() => undefined);
    return info && `${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  },
  read: (file) => readFile(file, 'utf8').catch(() => undefined),
};

/** A fresh folder (its real path) holding `files`, removed after the test. */
export async function folderWith(files: Record<string, string>, prefix = 'operator-code-'): Promise<string> {
  const folder = await makeTempDir(prefix);
  await writeFiles(folder, files);
  return folder;
}

/** Writes `files` (paths relative to `folder`), making their folders. */
export async function writeFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, name)), { recursive: true });
    await writeFile(path.join(folder, name), content, { mode: name.includes('/.bin/') ? 0o755 : 0o644 });
  }
}

/** Polls `check` until it holds; fails after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The environment of a running process, from /proc. */
export async function environOf(pid: number): Promise<Map<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8');
  return new Map(raw.split('\0').filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/** `pid` and every process below it. */
export async function processTree(pid: number): Promise<number[]> {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    const text = await readFile(`/proc/${tree[index]}/task/${tree[index]}/children`, 'utf8').catch(() => '');
    tree.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return tree;
}

/** A process's command line, its arguments joined by spaces. */
export async function commandLineOf(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ').trim();
}

/**
 * The process in the tree under `pid` whose command line contains `text`, bubblewrap's own
 * processes left out (their command lines hold the program's).
 */
export async function findInTree(pid: number, text: string): Promise<number | undefined> {
  for (const member of await processTree(pid)) {
    const name = await readFile(`/proc/${member}/comm`, 'utf8').catch(() => '');
    if (name.trim() !== 'bwrap' && (await commandLineOf(member)).includes(text)) return member;
  }
  return undefined;
}

/** The network namespace of a process (`net:[4026531840]`). */
export function networkOf(pid: number | 'self'): Promise<string> {
  return readlink(`/proc/${pid}/ns/net`);
}

/** The folders directly in `folder` (empty when it is missing). */
export async function entriesOf(folder: string): Promise<string[]> {
  return (await readdir(folder).catch(() => [])).sort();
}
