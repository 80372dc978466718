/**
 * Where pipelines are found by name: the profile's own (`OPERATOR_HOME/profiles/<profile>/pipelines/`),
 * then the team's (`OPERATOR_HOME/pipelines/`), then the ones operator ships (`pipelines/`), the
 * first that has `NAME.dot` winning, like skills and knowledge. A name is letters, digits, `-` and
 * `_`: never a path.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';

/** Where to look. */
export interface PipelineFolders {
  home: string;
  profile: string;
  /** The repository's root (its `pipelines/` folder). */
  builtin: string;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The folders searched, highest first. */
export function pipelineFolders(folders: PipelineFolders): string[] {
  return [join(folders.home, 'profiles', folders.profile, 'pipelines'), join(folders.home, 'pipelines'), join(folders.builtin, 'pipelines')];
}

/** The file of pipeline `name`, or undefined (also for a name that is not one). */
export function findPipeline(name: string, folders: PipelineFolders): string | undefined {
  if (!namePattern.test(name)) return undefined;
  return pipelineFolders(folders)
    .map((folder) => join(folder, `${name}.dot`))
    .find((file) => existsSync(file));
}

/** Every pipeline name found, sorted, with the file that wins. */
export async function listPipelines(folders: PipelineFolders): Promise<{ name: string; file: string }[]> {
  const found = new Map<string, string>();
  for (const folder of pipelineFolders(folders)) {
    const entries = await readdir(folder).catch(() => [] as string[]);
    for (const entry of entries.sort()) {
      const name = entry.endsWith('.dot') ? entry.slice(0, -'.dot'.length) : undefined;
      if (name && namePattern.test(name) && !found.has(name)) found.set(name, join(folder, entry));
    }
  }
  return [...found].map(([name, file]) => ({ name, file })).sort((a, b) => a.name.localeCompare(b.name));
}
