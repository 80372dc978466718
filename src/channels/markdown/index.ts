export { chunkMarkdown, type MarkdownChunkOptions } from './chunk-markdown.ts';
export { decodeEntities } from './decode-entities.ts';
