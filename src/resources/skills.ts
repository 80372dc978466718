/**
 * Loading skills: every `<folder>/<name>/SKILL.md` in a profile's skill folders, highest layer
 * first. A broken skill is skipped with a {@link ResourceProblem}; loading never throws.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { folderLayers } from './layers.ts';
import type { ResourceLayers } from './layers.ts';
import { readTextFile } from './read-text.ts';
import { parseSkillFile } from './skill-metadata.ts';
import type { ResourceProblem, ResourceSource, Skill } from './types.ts';

/** Largest SKILL.md, in bytes (256 KiB). */
export const maxSkillFileBytes = 256 * 1024;

/** Skills that loaded and what did not. */
export interface LoadedSkills {
  /** Sorted by name; one per name, from the highest layer that has a valid one. */
  skills: Skill[];
  problems: ResourceProblem[];
}

/**
 * Loads the skills of a profile from the folders of `folderLayers(layers, 'skills')`. For a name
 * found in several layers the highest layer's valid skill wins; an invalid one is reported and
 * does not hide a valid one below it. A folder without SKILL.md and a missing layer folder are
 * ignored silently.
 */
export function loadSkills(layers: ResourceLayers): LoadedSkills {
  const byName = new Map<string, Skill>();
  const problems: ResourceProblem[] = [];
  for (const layer of folderLayers(layers, 'skills')) {
    const folder = resolve(layer.path);
    for (const entry of listSkillFolders(folder, problems)) {
      const loaded = loadSkill(join(folder, entry), entry, layer.source);
      if ('problem' in loaded) {
        if (loaded.problem) problems.push(loaded.problem);
      } else if (!byName.has(loaded.skill.name)) {
        byName.set(loaded.skill.name, loaded.skill);
      }
    }
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { skills, problems };
}

/** Loads `<directory>/SKILL.md`; `problem: undefined` means there is no SKILL.md (not a skill). */
function loadSkill(
  directory: string,
  folderName: string,
  source: ResourceSource,
): { skill: Skill } | { problem: ResourceProblem | undefined } {
  const location = join(directory, 'SKILL.md');
  if (!exists(location)) return { problem: undefined };
  const read = readTextFile(location, { maxBytes: maxSkillFileBytes });
  if ('problem' in read) return read;
  if (read.truncated) {
    return {
      problem: {
        file: location,
        message: `SKILL.md is ${read.bytes} bytes, more than the ${maxSkillFileBytes} allowed`,
      },
    };
  }
  const parsed = parseSkillFile(read.text, folderName);
  if ('reason' in parsed) {
    return { problem: { file: location, ...(parsed.line === undefined ? {} : { line: parsed.line }), message: parsed.reason } };
  }
  const { metadata } = parsed;
  return {
    skill: {
      name: metadata.name,
      description: metadata.description,
      location,
      directory,
      userInvocable: metadata.userInvocable,
      disableModelInvocation: metadata.disableModelInvocation,
      source,
    },
  };
}

/** The sub-folders of a skills folder (symbolic links to folders count), sorted; hidden ones skipped. */
function listSkillFolders(folder: string, problems: ResourceProblem[]): string[] {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      problems.push({ file: folder, message: `the skills folder cannot be read: ${(error as Error).message}` });
    }
    return [];
  }
  return entries
    .filter((entry) => !entry.name.startsWith('.'))
    .filter((entry) => entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(folder, entry.name))))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Whether `path` exists; other failures (no permission) count as existing so the read reports them. */
function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
