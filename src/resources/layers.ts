/**
 * The resource folders of a profile and their precedence. For every resource file the order is,
 * highest first: `OPERATOR_HOME/profiles/<name>/`, `OPERATOR_HOME/`, the built-in
 * `profiles/<name>/`, the built-in `profiles/default/`: a person's files always beat shipped ones.
 */
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.ts';
import type { ResourceSource } from './types.ts';

/** The repository's root, where the built-in `profiles/`, `skills/` and `knowledge/` ship. */
export const builtinRoot = packageRoot;

/** The folders one profile draws its resources from. */
export interface ResourceLayers {
  /** Profile name (a folder name). */
  profile: string;
  /** OPERATOR_HOME. */
  home: string;
  /** Where built-in resources live (default {@link builtinRoot}). */
  builtin: string;
}

/** A folder with the source it stands for. */
export interface LayerFolder {
  path: string;
  source: ResourceSource;
}

/** The profile's own folder in OPERATOR_HOME, where its memory and managed skills are written. */
export function profileHome(layers: ResourceLayers): string {
  return join(layers.home, 'profiles', layers.profile);
}

/** The folders searched for a single resource file (SOUL.md, MEMORY.md, ...), highest first. */
export function fileLayers(layers: ResourceLayers): LayerFolder[] {
  const folders: LayerFolder[] = [
    { path: profileHome(layers), source: 'profile' },
    { path: layers.home, source: 'home' },
    { path: join(layers.builtin, 'profiles', layers.profile), source: 'builtin-profile' },
  ];
  if (layers.profile !== 'default') folders.push({ path: join(layers.builtin, 'profiles', 'default'), source: 'builtin' });
  return folders;
}

/**
 * The folders searched for a kind of resource folder (`skills`, `knowledge`, `guardrails`),
 * highest first: the profile's, OPERATOR_HOME's, the built-in profile's, then the repository's
 * top-level one (`<builtin>/skills`).
 */
export function folderLayers(layers: ResourceLayers, kind: 'skills' | 'knowledge' | 'guardrails'): LayerFolder[] {
  return [
    { path: join(profileHome(layers), kind), source: 'profile' },
    { path: join(layers.home, kind), source: 'home' },
    { path: join(layers.builtin, 'profiles', layers.profile, kind), source: 'builtin-profile' },
    { path: join(layers.builtin, kind), source: 'builtin' },
  ];
}

