/**
 * The persona a profile gives the agent, for `/profile` in the terminal: the SOUL.md the prompt
 * uses (the same layers, highest first), or SYSTEM.md when one replaces the whole identity, or the
 * built-in default; shortened to a few lines, with where to read or change the whole of it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileLayers, type ResourceLayers } from '../resources/layers.ts';
import { defaultPersona } from '../resources/prompt-assembly.ts';
import { safeTerminalText } from './terminal-text.ts';

/** Where a profile's persona comes from, and its text. */
export interface ProfilePersona {
  /** The file, or undefined for the built-in default persona. */
  path?: string;
  /** `SOUL.md`, or `SYSTEM.md` when that replaces the identity. */
  label?: 'SOUL.md' | 'SYSTEM.md';
  text: string;
}

/** How much of the persona `/profile` shows. */
const maxLines = 8;
const maxLineLength = 100;

/** Reads the persona of the profile in `layers` as the system prompt would take it. */
export async function readProfilePersona(layers: ResourceLayers): Promise<ProfilePersona> {
  for (const label of ['SYSTEM.md', 'SOUL.md'] as const) {
    const path = fileLayers(layers).map((folder) => join(folder.path, label)).find((candidate) => existsSync(candidate));
    if (!path) continue;
    const text = (await readFile(path, 'utf8')).trim();
    // An empty file leaves the layer out of the prompt, as if it were not there.
    if (text !== '') return { path, label, text };
  }
  return { text: defaultPersona };
}

/** The persona's lines for the terminal, indented, long ones cut and the rest counted. */
export function describePersona(persona: ProfilePersona): string[] {
  const source = persona.path
    ? persona.label === 'SYSTEM.md' ? `persona (SYSTEM.md, replacing SOUL.md): ${persona.path}` : `persona (SOUL.md): ${persona.path}`
    : 'persona (built-in default; write a SOUL.md in the profile folder to change it)';
  // Blank lines between paragraphs say little on a terminal; runs of them would waste the few shown.
  const lines = safeTerminalText(persona.text).split('\n').map((line) => line.trimEnd()).filter((line, index, all) => line !== '' || (index > 0 && all[index - 1] !== ''));
  const shown = lines.slice(0, maxLines).map((line) => (line === '' ? '' : `    ${line.length > maxLineLength ? `${line.slice(0, maxLineLength - 1).trimEnd()}…` : line}`));
  const hidden = lines.length - Math.min(lines.length, maxLines);
  return [`  ${source}`, ...shown, ...(hidden > 0 ? [`    … (${hidden} more line${hidden === 1 ? '' : 's'} in the file)`] : [])];
}
