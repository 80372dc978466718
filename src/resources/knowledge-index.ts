/**
 * Full-text search over knowledge documents, section by section, with MiniSearch (BM25-style
 * ranking, prefix and fuzzy matching). A hit names its file and the heading it is under, with a
 * short excerpt around the best match.
 */
import MiniSearch from 'minisearch';
import { splitSections } from './knowledge-sections.ts';
import { makeSnippet } from './knowledge-snippet.ts';
import type { KnowledgeDocument } from './types.ts';

/** One search result: a section of a document. */
export interface KnowledgeHit {
  /** The document's name (its path relative to its knowledge folder). */
  file: string;
  /** The document's absolute path. */
  path: string;
  /** The nearest Markdown heading above the match; `''` for text before any heading. */
  heading: string;
  /** A short excerpt around the best match, at most 300 characters. */
  snippet: string;
  /** Relevance; higher is better. Comparable only within one search. */
  score: number;
}

/** Options of {@link KnowledgeIndex.search}. */
export interface KnowledgeSearchOptions {
  /** Hits returned at most. Default 5. */
  limit?: number;
}

/** A searchable index of knowledge documents. */
export interface KnowledgeIndex {
  /** The best sections for `query`, best first; ties ordered by file name, then position in the file. */
  search(query: string, options?: KnowledgeSearchOptions): KnowledgeHit[];
}

interface IndexedSection {
  id: number;
  file: string;
  fileTerms: string;
  path: string;
  heading: string;
  text: string;
  line: number;
}

/**
 * Builds the index. Documents are split at their headings; each section is indexed by heading
 * and text, the first one also by file name (a heading match counts more than one in the text).
 *
 * @example
 * const index = createKnowledgeIndex(loadKnowledge(layers).documents);
 * index.search('rollback deploy', { limit: 3 });
 */
export function createKnowledgeIndex(documents: readonly KnowledgeDocument[]): KnowledgeIndex {
  const sections: IndexedSection[] = [];
  const ordered = [...documents].sort((a, b) => compare(a.name, b.name));
  for (const document of ordered) {
    splitSections(document.text).forEach((section, position) => {
      // The file name is indexed with the first section only: a query naming the file should
      // find the document once, not every section of it.
      const fileTerms = position === 0 ? document.name : '';
      sections.push({ id: sections.length, file: document.name, path: document.path, fileTerms, ...section });
    });
  }
  const miniSearch = new MiniSearch<IndexedSection>({
    fields: ['heading', 'text', 'fileTerms'],
    searchOptions: {
      boost: { heading: 3, fileTerms: 2 },
      // One or two letters as a prefix or with a typo would match nearly everything.
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
    },
  });
  miniSearch.addAll(sections);

  return {
    search(query, options = {}) {
      const limit = Math.max(1, Math.floor(options.limit ?? 5));
      if (query.trim() === '') return [];
      const results = miniSearch.search(query);
      return results
        .map((result) => ({ result, section: sections[result.id as number] as IndexedSection }))
        .sort(
          (a, b) =>
            b.result.score - a.result.score || compare(a.section.file, b.section.file) || a.section.line - b.section.line,
        )
        .slice(0, limit)
        .map(({ result, section }) => ({
          file: section.file,
          path: section.path,
          heading: section.heading,
          snippet: makeSnippet(section.text === '' ? section.heading : section.text, result.terms),
          score: result.score,
        }));
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
