/**
 * Rules: project and personal instructions added to the system prompt. Read lazily on first use
 * and cached until {@link RulesLoader.reset}; a file that cannot be read is reported, never fatal.
 */
import { join, resolve } from 'node:path';
import { readTextFile } from './read-text.ts';
import type { ResourceProblem } from './types.ts';

/** Largest rules file read, in bytes (256 KiB); the rest is cut with a visible notice. */
export const maxRulesFileBytes = 256 * 1024;

/** Where rules are looked for. */
export interface RulesLoaderOptions {
  /** The working directory (its `.operator/rules.md` and legacy `.agent/rules.md`). */
  cwd: string;
  /** OPERATOR_HOME (its `rules.md`). */
  home: string;
}

/** The rules in force. */
export interface Rules {
  /** The non-empty files' text, highest precedence first, joined by `\n\n---\n\n`; `''` when none. */
  text: string;
  /** Absolute paths of the files that contributed, in the order of `text`. */
  files: string[];
  problems: ResourceProblem[];
}

/** Loads rules once and keeps them until reset. */
export interface RulesLoader {
  /** The rules; the files are read on the first call after creation or {@link reset}. */
  get(): Promise<Rules>;
  /** Forgets the cached rules; the next {@link get} reads the files again. */
  reset(): void;
}

/**
 * Creates a rules loader. The files, highest precedence first: `<cwd>/.operator/rules.md`,
 * `<home>/rules.md`, `<cwd>/.agent/rules.md` (legacy). Missing and blank files are skipped; a
 * file reached by two of these paths counts once.
 */
export function createRulesLoader(options: RulesLoaderOptions): RulesLoader {
  let cached: Promise<Rules> | undefined;
  return {
    get() {
      cached ??= Promise.resolve().then(() => loadRules(options));
      return cached;
    },
    reset() {
      cached = undefined;
    },
  };
}

/** The candidate rules files, highest precedence first. */
export function rulesFiles(options: RulesLoaderOptions): string[] {
  const files = [
    resolve(join(options.cwd, '.operator', 'rules.md')),
    resolve(join(options.home, 'rules.md')),
    resolve(join(options.cwd, '.agent', 'rules.md')),
  ];
  return files.filter((file, index) => files.indexOf(file) === index);
}

function loadRules(options: RulesLoaderOptions): Rules {
  const parts: string[] = [];
  const files: string[] = [];
  const problems: ResourceProblem[] = [];
  for (const file of rulesFiles(options)) {
    const read = readTextFile(file, { maxBytes: maxRulesFileBytes });
    if ('problem' in read) {
      if (!read.missing) problems.push(read.problem);
      continue;
    }
    const text = read.text.trim();
    if (text === '') continue;
    if (read.truncated) {
      const message = `the file is ${read.bytes} bytes; only the first ${maxRulesFileBytes} were used`;
      problems.push({ file, message });
      parts.push(`${text}\n\n[rules cut: ${message}]`);
    } else {
      parts.push(text);
    }
    files.push(file);
  }
  return { text: parts.join('\n\n---\n\n'), files, problems };
}
