/** The `knowledge_search` tool: ranked full-text search over the knowledge documents. */
import * as z from 'zod';
import type { KnowledgeIndex } from '../../resources/knowledge-index.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';

/** Options of {@link createKnowledgeSearchTool}. */
export interface KnowledgeSearchToolOptions {
  /** The index of the documents loaded now; called on every search, so a reload is seen at once. */
  getIndex: () => KnowledgeIndex;
}

const parameters = z.object({
  query: z.string().min(1).describe('Words to look for, e.g. "rollback database migration". Not a question.'),
  limit: z.int().min(1).max(20).optional().describe('How many results at most. Default 5.'),
});

/** Creates the `knowledge_search` tool. */
export function createKnowledgeSearchTool(options: KnowledgeSearchToolOptions) {
  return defineTool({
    name: 'knowledge_search',
    machine: 'none',
    description:
      'Search the knowledge documents (the team\'s runbooks, references and notes, and operator\'s own: its chat commands and who may use them, writing for each chat platform) before answering from memory. ' +
      'Returns the best matching sections with file, heading and an excerpt; read the whole file with read_file ' +
      'at the path given when the excerpt is not enough. Matches word prefixes and small typos.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const hits = options.getIndex().search(args.query, { limit: args.limit ?? 5 });
      if (hits.length === 0) return { content: `No knowledge matched "${args.query}".` };
      const lines = hits.map((hit, index) => {
        const title = hit.heading === '' ? hit.file : `${hit.file} › ${hit.heading}`;
        return `${index + 1}. ${title}\n   ${hit.path}\n   ${hit.snippet}`;
      });
      return { content: lines.join('\n\n') };
    },
  });
}
