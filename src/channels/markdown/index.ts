export { chunkMarkdown, type MarkdownChunkOptions } from './chunk-markdown.ts';
