/**
 * The `run_pipeline` tool: the model starts one of the conversation's pipelines (as `/run NAME
 * GOAL` would), which runs in the background, its progress and questions in the conversation. Who
 * gets it: the `shell` tool group (a pipeline runs commands and changes files): the owner's seats,
 * others by grant. In groups it is off unless operator.json says `pipelines.toolInGroups`: a
 * message there may come from anyone, and a model told to run pipelines should not start them
 * for whoever asks.
 */
import * as z from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { defineTool, type Tool, type TurnContext } from '../../tools/tool.ts';

/** What the tool needs. */
export interface RunPipelineToolOptions {
  /** Starts pipeline `name` in the turn's conversation; resolves to the run id, or throws why not. */
  start(turn: TurnContext, name: string, goal: string): Promise<string>;
  /** The turn's conversation is a group. */
  inGroup(turn: TurnContext): Promise<boolean>;
  /** operator.json `pipelines.toolInGroups`. */
  allowInGroups: boolean;
}

/** The `run_pipeline` tool. */
export function createRunPipelineTool(options: RunPipelineToolOptions): Tool {
  return defineTool({
    name: 'run_pipeline',
    machine: 'shell',
    description:
      'Start a pipeline (a multi-step workflow such as "task" or "coder") in this conversation with a goal. It runs in the background: ' +
      'its progress and its questions to the person appear in the chat, and you are not told its result, so do not wait for it. ' +
      'Use it when the person asks for that workflow; /run lists the pipelines.',
    parameters: z.object({
      name: z.string().min(1).max(64).describe('The pipeline, e.g. "task".'),
      goal: z.string().min(1).max(4_000).describe('What it should achieve.'),
    }),
    async execute(args, context) {
      const turn = context.turn;
      if (!turn) return { content: 'Error: pipelines run from a chat conversation; in the terminal use `operator pipeline run`.', isError: true };
      if (!options.allowInGroups && (await options.inGroup(turn))) return { content: 'Error: starting pipelines from the model is off in groups here; the person can type /run NAME GOAL.', isError: true };
      try {
        const id = await options.start(turn, args.name, args.goal);
        return `Started run ${id} of ${args.name}. It runs in the background; its progress and questions appear in this conversation (/run stop ${id} stops it).`;
      } catch (error) {
        return { content: `Error: ${errorMessage(error)}`, isError: true };
      }
    },
  });
}
