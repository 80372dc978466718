export { chunkMarkdown, type MarkdownChunkOptions } from './chunk-markdown.ts';
export { decodeEntities } from './decode-entities.ts';
export { markdownWarmUpSample } from './warm-up-sample.ts';
