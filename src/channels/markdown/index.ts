// Adapters import these files directly rather than this index: it re-exports chunkMarkdown, and
// with it marked, whose rules (built as it loads, some 7 ms) a start does not need (a plain reply
// is escaped without the formatter, and the formatter loads on first use).
export { chunkMarkdown, type MarkdownChunkOptions } from './chunk-markdown.ts';
export { decodeEntities } from './decode-entities.ts';
export { markdownWarmUpSample } from './warm-up-sample.ts';
