/**
 * What loading a skill gives the model: its instructions (SKILL.md without the frontmatter), the
 * text of its `references/`, and the paths (not the contents) of its `scripts/` and `assets/`.
 * Reference text is capped per file and in total; a cut is marked in the text itself so no reader
 * can miss it.
 */
import { join } from 'node:path';
import { parseFrontmatter } from './frontmatter.ts';
import { readTextFile } from './read-text.ts';
import { listFiles } from './read-text-tree.ts';
import { maxSkillFileBytes } from './skills.ts';
import type { ResourceProblem, Skill } from './types.ts';

/** One file of a skill's `references/` folder. */
export interface SkillReference {
  /** Relative to the skill's folder, e.g. `references/api.md`. */
  path: string;
  /** The file's text, ending in a notice when it was cut. */
  text: string;
  truncated: boolean;
}

/** A skill's instructions and files. */
export interface SkillContent {
  /** SKILL.md after the frontmatter, trimmed. */
  body: string;
  /** Sorted by path. */
  references: SkillReference[];
  /** References not included, with the reason (budget used up, binary file). */
  omittedReferences: { path: string; reason: string }[];
  /** Relative to the skill's folder, e.g. `scripts/deploy.sh`, sorted. */
  scripts: string[];
  /** Relative to the skill's folder, sorted. */
  assets: string[];
  /** Folders whose listing was cut at `maxListedFiles`, e.g. `scripts/`. */
  cutListings: string[];
  /** Files or folders that could not be read. */
  problems: ResourceProblem[];
}

/** Options of {@link readSkillContent}. */
export interface ReadSkillContentOptions {
  /** Bytes of one reference file included at most. Default 16 KiB. */
  maxReferenceBytes?: number;
  /** Bytes of all reference files together. Default 64 KiB. */
  maxTotalReferenceBytes?: number;
  /** Files listed at most per folder (`references/`, `scripts/`, `assets/`). Default 200. */
  maxListedFiles?: number;
}

/**
 * Reads the content of a loaded skill. Fails (with a problem) only when SKILL.md itself can no
 * longer be read or parsed; unreadable reference files are listed in `problems`.
 */
export function readSkillContent(
  skill: Skill,
  options: ReadSkillContentOptions = {},
): SkillContent | { problem: ResourceProblem } {
  const maxReferenceBytes = options.maxReferenceBytes ?? 16 * 1024;
  const maxListedFiles = options.maxListedFiles ?? 200;
  let budget = options.maxTotalReferenceBytes ?? 64 * 1024;

  const read = readTextFile(skill.location, { maxBytes: maxSkillFileBytes });
  if ('problem' in read) return { problem: read.problem };
  if (read.truncated) {
    return { problem: { file: skill.location, message: `SKILL.md is ${read.bytes} bytes, more than the ${maxSkillFileBytes} allowed` } };
  }
  const parsed = parseFrontmatter(read.text);
  if ('error' in parsed) {
    return { problem: { file: skill.location, ...(parsed.line === undefined ? {} : { line: parsed.line }), message: parsed.error } };
  }

  const content: SkillContent = {
    body: parsed.body.trim(),
    references: [],
    omittedReferences: [],
    scripts: [],
    assets: [],
    cutListings: [],
    problems: [],
  };
  const list = (folder: string): string[] => {
    const listed = listFiles(join(skill.directory, folder), { maxFiles: maxListedFiles });
    content.problems.push(...listed.problems);
    if (listed.truncated) content.cutListings.push(`${folder}/`);
    return listed.files.map((file) => `${folder}/${file}`);
  };

  for (const path of list('references')) {
    if (budget <= 0) {
      content.omittedReferences.push({ path, reason: 'the budget for reference text was used up' });
      continue;
    }
    const file = join(skill.directory, path);
    const reference = readTextFile(file, { maxBytes: Math.min(maxReferenceBytes, budget) });
    if ('problem' in reference) {
      content.problems.push(reference.problem);
      continue;
    }
    if (reference.text.includes('\u0000')) {
      content.omittedReferences.push({ path, reason: 'binary file' });
      continue;
    }
    const included = Buffer.byteLength(reference.text);
    budget -= included;
    content.references.push({
      path,
      text: reference.truncated
        ? `${reference.text}\n\n[cut: only the first ${included} of ${reference.bytes} bytes are shown; read ${file} for the rest]`
        : reference.text,
      truncated: reference.truncated,
    });
  }
  content.scripts = list('scripts');
  content.assets = list('assets');
  return content;
}
