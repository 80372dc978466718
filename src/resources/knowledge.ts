/**
 * Knowledge: the Markdown documents of a profile's knowledge folders. Small ones are injected into
 * the system prompt within a budget; all of them are searchable (see `knowledge-index.ts`).
 */
import { basename, join, resolve } from 'node:path';
import { firstHeading } from './knowledge-sections.ts';
import { folderLayers } from './layers.ts';
import type { ResourceLayers } from './layers.ts';
import { readTextFile } from './read-text.ts';
import { listFiles } from './read-text-tree.ts';
import type { KnowledgeDocument, ResourceProblem } from './types.ts';

/** Largest knowledge document, in bytes (512 KiB); bigger ones are skipped with a problem. */
export const maxKnowledgeFileBytes = 512 * 1024;

/** Documents that loaded and what did not. */
export interface LoadedKnowledge {
  /** Sorted by name; one per name, from the highest layer that has it. */
  documents: KnowledgeDocument[];
  problems: ResourceProblem[];
}

/**
 * Loads every `*.md` file (recursively) in the folders of `folderLayers(layers, 'knowledge')`. A
 * document's name is its path relative to its folder; a higher layer's document replaces a lower
 * one of the same name. `README.md` at the top of a built-in knowledge folder explains the folder
 * and is not a document. Missing folders are fine; never throws.
 */
export function loadKnowledge(layers: ResourceLayers): LoadedKnowledge {
  const byName = new Map<string, KnowledgeDocument>();
  const problems: ResourceProblem[] = [];
  for (const layer of folderLayers(layers, 'knowledge')) {
    const folder = resolve(layer.path);
    const builtin = layer.source === 'builtin' || layer.source === 'builtin-profile';
    const listed = listFiles(folder, {
      include: (name) => name.toLowerCase().endsWith('.md') && !(builtin && name.toLowerCase() === 'readme.md'),
    });
    problems.push(...listed.problems);
    if (listed.truncated) problems.push({ file: folder, message: 'too many files: only the first 10,000 were loaded' });
    for (const name of listed.files) {
      // A higher layer already has it: the lower file is not even read.
      if (byName.has(name)) continue;
      const path = join(folder, name);
      const read = readTextFile(path, { maxBytes: maxKnowledgeFileBytes });
      if ('problem' in read) {
        problems.push(read.problem);
      } else if (read.truncated) {
        problems.push({ file: path, message: `the document is ${read.bytes} bytes, more than the ${maxKnowledgeFileBytes} allowed` });
      } else {
        byName.set(name, { name, path, title: firstHeading(read.text) ?? basename(name), text: read.text, source: layer.source });
      }
    }
  }
  const documents = [...byName.values()].sort((a, b) => compare(a.name, b.name));
  return { documents, problems };
}

/** Options of {@link selectKnowledgeForInjection}. */
export interface KnowledgeInjectionOptions {
  /** Documents longer than this (in characters) are never injected. Default 4,000. */
  maxDocumentChars?: number;
  /** Characters of the whole injected text at most, wrappers included. Default 12,000. */
  budgetChars?: number;
}

/** The knowledge injected into the system prompt. */
export interface KnowledgeInjection {
  /** The `<knowledge file="...">` blocks joined by blank lines; `''` when none fit. */
  text: string;
  /** Names of the injected documents, in the order of `text`. */
  injected: string[];
  /** Names of the documents left out (too big or over the budget), sorted. */
  omitted: string[];
}

/**
 * Chooses the documents to inject: only small ones, smallest first until the budget is spent,
 * then written out in name order. The same documents always give the same bytes, so the system
 * prompt stays cacheable. Blank documents are neither injected nor listed. The documents operator
 * ships (the built-in `knowledge/` folder) are never injected, only searchable: they would cost
 * every request of every conversation, and the budget is the team's.
 */
export function selectKnowledgeForInjection(
  documents: readonly KnowledgeDocument[],
  options: KnowledgeInjectionOptions = {},
): KnowledgeInjection {
  const maxDocumentChars = options.maxDocumentChars ?? 4_000;
  const budgetChars = options.budgetChars ?? 12_000;
  const blocks = documents
    .filter((document) => document.source !== 'builtin')
    .map((document) => ({ name: document.name, text: document.text.trim() }))
    .filter((document) => document.text !== '')
    .map((document) => ({
      name: document.name,
      size: document.text.length,
      block: `<knowledge file="${escapeAttribute(document.name)}">\n${document.text}\n</knowledge>`,
    }))
    .sort((a, b) => a.size - b.size || compare(a.name, b.name));

  const chosen: typeof blocks = [];
  const omitted: string[] = [];
  let used = 0;
  const separator = '\n\n';
  for (const candidate of blocks) {
    const cost = candidate.block.length + (chosen.length > 0 ? separator.length : 0);
    if (candidate.size <= maxDocumentChars && used + cost <= budgetChars) {
      chosen.push(candidate);
      used += cost;
    } else {
      omitted.push(candidate.name);
    }
  }
  chosen.sort((a, b) => compare(a.name, b.name));
  return {
    text: chosen.map((block) => block.block).join(separator),
    injected: chosen.map((block) => block.name),
    omitted: omitted.sort(compare),
  };
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
