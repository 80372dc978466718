/**
 * The task workflow's view of its workspace, read through the pipeline's command runner (the
 * sandbox and guardrails of a `tool` node): the files (`git ls-files`, else `find` with the usual
 * build and dependency folders left out, at most {@link maxListed}), the project profile from
 * them and their manifests, a keyword search (`grep`), snippets of a few files (`head -c`), and
 * the files the run changed (`git status`, `git diff`). The gateway never opens a workspace file
 * itself: a tool may have made any of them a link to a secret, and only the sandbox may follow it.
 * A command that fails or is refused gives nothing (an empty listing, no change tracked), never
 * an error: the task goes on with less context.
 */
import type { CommandRunner } from '../handlers/tool-handler.ts';
import { profileManifests, projectProfileOf, type ProjectProfile } from './project-profile.ts';

/** Paths listed at most. */
export const maxListed = 5_000;
/** Characters of a manifest read at most. */
const manifestChars = 20_000;
/** Characters of the diff kept. */
export const diffChars = 4_000;
/** Folders never listed or searched. */
const prunedFolders = ['.git', 'node_modules', 'dist', 'build', 'target', '.venv', 'venv', '__pycache__', '.next', 'coverage', '.cache'];

/** Starts each part of a command's output that holds several (a record separator, never in a path or manifest we read). */
const part = '\u001e';

/** What the index found. */
export interface WorkspaceIndex {
  files: string[];
  /** More files than {@link maxListed}: the listing is the first ones. */
  truncated: boolean;
  /** The workspace is (in) a git repository. */
  git: boolean;
  profile: ProjectProfile;
}

/** Runs the runner's commands with one signal. */
export type Run = (command: string) => Promise<string | undefined>;

/** `runner` as {@link Run}: the output of a command that ran (any exit code), undefined for one refused. */
export function runWith(runner: CommandRunner, signal: AbortSignal): Run {
  return async (command) => {
    const outcome = await runner(command, { signal, timeoutMs: 30_000 });
    return outcome.refused === undefined ? outcome.output : undefined;
  };
}

/** `text` quoted for bash: as one word, nothing in it expanded. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The parts of `output` a command printed each after `printf '\036NAME\n'`, by name. */
function partsOf(output: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const chunk of output.split(part).slice(1)) {
    const newline = chunk.indexOf('\n');
    parts.set(newline === -1 ? chunk : chunk.slice(0, newline), newline === -1 ? '' : chunk.slice(newline + 1));
  }
  return parts;
}

/** Reads the workspace's files and manifests (one command) and its project profile. */
export async function indexWorkspace(run: Run): Promise<WorkspaceIndex> {
  const prune = prunedFolders.map((name) => `-name ${shellQuote(name)}`).join(' -o ');
  const manifests = profileManifests.map((name) => shellQuote(name)).join(' ');
  const command = [
    `if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then printf '${part}git\\n'; git ls-files -co --exclude-standard 2>/dev/null | head -n ${maxListed + 1};`,
    `else printf '${part}find\\n'; find . \\( ${prune} \\) -prune -o -type f -print 2>/dev/null | sed 's|^\\./||' | head -n ${maxListed + 1}; fi;`,
    // A manifest that is a link is not followed (it could point anywhere).
    `for f in ${manifests}; do if [ -f "$f" ] && [ ! -L "$f" ]; then printf '${part}file:%s\\n' "$f"; head -c ${manifestChars} -- "$f"; fi; done`,
  ].join(' ');
  const parts = partsOf((await run(command)) ?? '');
  const git = parts.has('git');
  const listed = (parts.get('git') ?? parts.get('find') ?? '').split('\n').filter((line) => line !== '');
  const files = listed.slice(0, maxListed);
  const profile = projectProfileOf(files, (path) => parts.get(`file:${path}`));
  return { files, truncated: listed.length > maxListed, git, profile };
}

/**
 * Paths holding any of `keywords` (case-insensitive), at most `max`, those with the most keywords
 * first. One pass over the files (`git grep` in a repository, `grep -r` elsewhere), each file's
 * keywords found once.
 */
export async function searchFiles(run: Run, keywords: readonly string[], max: number): Promise<string[]> {
  if (keywords.length === 0) return [];
  const patterns = keywords.map((keyword) => `-e ${shellQuote(keyword)}`).join(' ');
  const excluded = prunedFolders.map((name) => `--exclude-dir=${shellQuote(name)}`).join(' ');
  const command = `{ if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git grep --untracked -IioF ${patterns}; else grep -rIioF ${excluded} ${patterns} . | sed 's|^\\./||'; fi; } 2>/dev/null | sort -fu | head -n 5000`;
  const found = new Map<string, Set<string>>();
  for (const line of ((await run(command)) ?? '').split('\n')) {
    const colon = line.lastIndexOf(':');
    if (colon <= 0) continue;
    const path = line.slice(0, colon);
    const keywordsOf = found.get(path) ?? new Set<string>();
    keywordsOf.add(line.slice(colon + 1).toLowerCase());
    found.set(path, keywordsOf);
  }
  return [...found].sort((a, b) => b[1].size - a[1].size).slice(0, max).map(([path]) => path);
}

/** The first `chars` characters of each of `paths` (links not followed), by path. */
export async function readSnippets(run: Run, paths: readonly string[], chars: number): Promise<Map<string, string>> {
  if (paths.length === 0) return new Map();
  const command = `for f in ${paths.map(shellQuote).join(' ')}; do if [ -f "$f" ] && [ ! -L "$f" ]; then printf '${part}%s\\n' "$f"; head -c ${chars} -- "$f"; fi; done`;
  return partsOf((await run(command)) ?? '');
}

/** The files the run created and modified, and the diff (stat, then its start); undefined when the workspace is no git repository. */
export async function workspaceChanges(run: Run): Promise<{ created: string[]; modified: string[]; diff: string } | undefined> {
  const command = [
    `git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 0;`,
    `printf '${part}status\\n'; git status --porcelain=v1 -uall 2>/dev/null | head -n 500;`,
    `printf '${part}diff\\n'; { git diff --stat HEAD 2>/dev/null && git diff HEAD 2>/dev/null || git diff 2>/dev/null; } | head -c ${diffChars}`,
  ].join(' ');
  const parts = partsOf((await run(command)) ?? '');
  if (!parts.has('status')) return undefined;
  const created: string[] = [];
  const modified: string[] = [];
  for (const line of (parts.get('status') ?? '').split('\n')) {
    if (line.length < 4) continue;
    const code = line.slice(0, 2);
    const path = line.slice(3).replace(/^.* -> /, '');
    (code === '??' || code.includes('A') ? created : modified).push(path);
  }
  return { created, modified, diff: (parts.get('diff') ?? '').trim() };
}

/** Words too common to find a file by. */
const commonWords = new Set(['the', 'and', 'that', 'this', 'with', 'from', 'into', 'what', 'when', 'then', 'them', 'they', 'make', 'have', 'should', 'would', 'could', 'test', 'tests', 'fail', 'failed', 'failing', 'fails', 'error', 'file', 'files', 'code', 'change', 'changes', 'work', 'task', 'does', 'were', 'there', 'their', 'which', 'after', 'before', 'expected', 'actual', 'true', 'false', 'null', 'undefined', 'function', 'return', 'const', 'node']);

/** Up to `max` words of `text` worth searching the workspace for: identifiers and file names, the rarest-looking first. */
export function extractKeywords(text: string, max = 6): string[] {
  const found = new Map<string, number>();
  for (const word of text.match(/[A-Za-z_][\w./-]{3,60}/g) ?? []) {
    const clean = word.replace(/[./-]+$/, '');
    if (clean.length < 4 || commonWords.has(clean.toLowerCase()) || /^\d/.test(clean)) continue;
    // File names and identifiers with inner capitals or underscores say most.
    const weight = /\.\w+$/.test(clean) ? 3 : /[a-z][A-Z]|_/.test(clean) ? 2 : 1;
    found.set(clean, Math.max(found.get(clean) ?? 0, weight));
  }
  return [...found].sort((a, b) => b[1] - a[1]).slice(0, max).map(([word]) => word);
}
