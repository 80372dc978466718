/**
 * The shared reference pool's tools: `add_references` saves short notes a sibling may need (a
 * finding, a path, an API's shape), `search_references` finds what the parent's children and the
 * parent saved. Who gets them: whoever gets the subagent tools (the `agents` tool group: the
 * owner; others by grant), in the parent and in each child (also at the depth limit). What a
 * search shows is text a model chose: it comes fenced as data, and taints the turn.
 */
import * as z from 'zod';
import { errorResult } from '../builtin/results.ts';
import { defineTool, type Tool, type ToolContext } from '../tool.ts';
import { asResult, type ReferenceAccess } from './subagent-control.ts';
import { referenceLimits } from './reference-pool.ts';

/** The names of the reference tools. */
export const referenceToolNames: readonly string[] = ['add_references', 'search_references'];

/** The two reference tools; they act on `context.references` (absent: the tools say so). */
export function createReferenceTools(): Tool[] {
  return [
    defineTool({
      name: 'add_references',
      machine: 'agents',
      description:
        'Save short references the other subagents of this task (and the agent that started them) may need: a finding, a file and ' +
        'line, an API detail, a command that works. They find them with search_references. Save facts, not instructions.',
      parameters: z.object({
        references: z
          .array(
            z.object({
              title: z.string().trim().min(1).max(referenceLimits.titleChars).describe('A few words to find it by.'),
              text: z.string().trim().min(1).max(referenceLimits.textChars).describe('The reference itself.'),
            }),
          )
          .min(1)
          .max(referenceLimits.perCall),
      }),
      execute: (args, context) => act(context, (references) => references.add(args.references)),
    }),
    defineTool({
      name: 'search_references',
      machine: 'agents',
      // Another model wrote them, perhaps from a page it read (see `turn-taint.ts`).
      untrustedSource: () => 'references saved by subagents',
      description: 'Search the references the subagents of this task and their parent saved with add_references, by words.',
      parameters: z.object({
        query: z.string().trim().min(1).max(500).describe('Words to look for in titles and texts.'),
        limit: z.int().min(1).max(referenceLimits.results.max).optional().describe(`Most results. Default ${referenceLimits.results.default}.`),
      }),
      execute: (args, context) => act(context, (references) => references.search(args.query, args.limit ?? referenceLimits.results.default)),
    }),
  ];
}

function act(context: ToolContext, work: (references: ReferenceAccess) => Promise<string>) {
  const references = context.references;
  if (!references) return Promise.resolve(errorResult('There is no reference pool here: it is shared by an agent and the subagents it starts.'));
  return asResult(context, () => work(references));
}
