/**
 * Loads declarative guardrail files from resource folders. A guardrail is named after its file
 * (`no-force-push.yaml` -> `no-force-push`); the file in the highest-precedence folder wins a
 * name. A file that cannot be loaded is reported and skipped, and the next folder's file of that
 * name (if any) is used instead, so a typo in an override never silently drops a guardrail.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Guardrail } from '../agent/guardrail.ts';
import { errorMessage } from '../core/errors.ts';
import type { LayerFolder } from '../resources/layers.ts';
import type { ResourceProblem, ResourceSource } from '../resources/types.ts';
import { parseGuardrailFile } from './parse-guardrail-file.ts';
import { createRuleGuardrail } from './rule-guardrail.ts';
import type { GuardrailRule } from './rule-schema.ts';

/** Extensions of guardrail files; within one folder the first one wins a name. */
const extensions = ['.yaml', '.yml', '.json'];

/** A guardrail loaded from a file. */
export interface FileGuardrail extends Guardrail {
  /** Absolute path of its file. */
  file: string;
  source: ResourceSource;
  description?: string;
  rules: readonly GuardrailRule[];
}

/** What {@link loadGuardrailFiles} found. */
export interface LoadedGuardrails {
  /** Ordered by the highest folder holding a file of that name, then by name. */
  guardrails: FileGuardrail[];
  problems: ResourceProblem[];
}

/**
 * Loads every `*.yaml`, `*.yml` and `*.json` file of `folders` (highest precedence first; missing
 * folders are skipped). Never throws for a bad file or folder.
 */
export function loadGuardrailFiles(folders: readonly LayerFolder[]): LoadedGuardrails {
  const problems: ResourceProblem[] = [];
  const candidates = new Map<string, { file: string; source: ResourceSource }[]>();
  for (const folder of folders) {
    for (const [name, file] of guardrailFilesIn(folder.path, problems)) {
      const list = candidates.get(name) ?? [];
      list.push({ file, source: folder.source });
      candidates.set(name, list);
    }
  }
  const guardrails: FileGuardrail[] = [];
  for (const [name, list] of candidates) {
    for (const { file, source } of list) {
      const loaded = loadOne(name, file, source, problems);
      if (loaded) {
        guardrails.push(loaded);
        break;
      }
    }
  }
  return { guardrails, problems };
}

/** `name -> file` of one folder, sorted by name. */
function guardrailFilesIn(folder: string, problems: ResourceProblem[]): Map<string, string> {
  const found = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(folder, { withFileTypes: true })
      .filter((entry) => !entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') problems.push({ file: folder, message: `cannot read the folder: ${errorMessage(error)}` });
    return found;
  }
  for (const fileName of names) {
    const extension = extensions.find((candidate) => fileName.toLowerCase().endsWith(candidate));
    if (!extension) continue;
    const name = fileName.slice(0, -extension.length);
    const file = path.join(folder, fileName);
    const taken = found.get(name);
    if (taken) problems.push({ file, message: `ignored: ${path.basename(taken)} in the same folder defines guardrail "${name}"` });
    else found.set(name, file);
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Extension rank, so `x.yaml` is seen before `x.yml` and `x.json`. */
function rank(fileName: string): number {
  const index = extensions.findIndex((candidate) => fileName.toLowerCase().endsWith(candidate));
  return index === -1 ? extensions.length : index;
}

function loadOne(name: string, file: string, source: ResourceSource, problems: ResourceProblem[]): FileGuardrail | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push({ file, message: `cannot read the file: ${errorMessage(error)}` });
    return undefined;
  }
  const parsed = parseGuardrailFile(file, text);
  if (!parsed.ok) {
    problems.push(...parsed.problems);
    return undefined;
  }
  const { rules, description } = parsed.file;
  return { ...createRuleGuardrail(name, rules), file, source, description, rules };
}
