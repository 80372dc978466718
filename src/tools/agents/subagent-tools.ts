/**
 * The subagent tools: `spawn_agent` starts a child agent on a delegated task in the background,
 * `send_input` hands it a message, `wait` collects its answer, `close_agent` ends it; with them
 * come `add_references` and `search_references`, the pool the children and their parent share. Children are
 * real agents with their own sessions and at most the tools the calling turn has (never its
 * browser, desktop, memory or the conversation's chat tools). Who gets these tools: the `agents`
 * tool group (the owner; others by grant).
 */
import * as z from 'zod';
import { errorResult } from '../builtin/results.ts';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tool.ts';
import { asResult, type SubagentControl } from './subagent-control.ts';
import { createReferenceTools } from './reference-tools.ts';

/** The names of the subagent tools (a child at the depth limit is given none of them). */
export const subagentToolNames: readonly string[] = ['spawn_agent', 'send_input', 'wait', 'close_agent'];

/** What `wait` waits when the model does not say, and at most. */
export const waitSeconds = { default: 120, max: 600 };

const spawnParameters = z.object({
  task: z.string().min(1).max(20_000).describe('The whole task: the subagent sees nothing of this conversation but this text.'),
  working_dir: z.string().min(1).optional().describe('Where it works, relative to your working directory (inside the workspace). Default: yours.'),
  model: z.string().min(1).optional().describe('A model id or alias for it instead of yours.'),
  max_turns: z.int().min(1).max(200).optional().describe('Most model calls it may make on this task.'),
});

const idParameter = z.string().min(1).max(40).describe('The id spawn_agent returned.');

/**
 * The four subagent tools, which act on `context.subagents` (absent: the tools say so), and the
 * reference pool's two (see `reference-tools.ts`), which children keep at the depth limit too.
 */
export function createSubagentTools(): Tool[] {
  return [
    ...createReferenceTools(),
    defineTool({
      name: 'spawn_agent',
      machine: 'agents',
      description:
        'Start a subagent on a delegated task; it works in the background while you go on. It has your file and ' +
        'command tools (not the browser, memory or chat tools) and none of this conversation: put everything it ' +
        'needs in `task`. Use it to split independent work (e.g. several bugs at once). Collect each answer with ' +
        'wait before you reply: subagents still running when your answer ends are stopped.',
      parameters: spawnParameters,
      execute: (args, context) =>
        act(context, async (subagents) => {
          const id = await subagents.spawn({ task: args.task, workingDir: args.working_dir, model: args.model, maxTurns: args.max_turns }, context);
          return `Subagent '${id}' spawned for task: ${firstLine(args.task)}\nUse wait(agent_id='${id}') to get results.`;
        }),
    }),
    defineTool({
      name: 'send_input',
      machine: 'agents',
      description: 'Send a message to a subagent: read after its current step if it is working, or started on if it finished.',
      parameters: z.object({ agent_id: idParameter, message: z.string().min(1).max(20_000).describe('The message.') }),
      execute: (args, context) => act(context, (subagents) => subagents.sendInput(args.agent_id, args.message, context)),
    }),
    defineTool({
      name: 'wait',
      machine: 'agents',
      description: `Wait for a subagent to finish its work and return its answer. Gives up after timeout_seconds (default ${waitSeconds.default}, at most ${waitSeconds.max}) and says it is still working.`,
      parameters: z.object({
        agent_id: idParameter,
        timeout_seconds: z.number().min(1).max(waitSeconds.max).optional().describe(`Default ${waitSeconds.default}.`),
      }),
      execute: (args, context) =>
        act(context, async (subagents): Promise<ToolOutput> => {
          const outcome = await subagents.wait(args.agent_id, (args.timeout_seconds ?? waitSeconds.default) * 1000, context.signal);
          if (outcome.state === 'finished') return { content: outcome.text || `(Subagent '${args.agent_id}' finished without an answer.)` };
          if (outcome.state === 'failed') return errorResult(`Subagent '${args.agent_id}' ${outcome.error}${outcome.text ? `\nWhat it said before:\n${outcome.text}` : ''}`);
          return {
            content: `Subagent '${args.agent_id}' is still working (${outcome.toolCalls} tool calls, ${outcome.seconds} s so far). Wait again, send_input, or close_agent.`,
          };
        }),
    }),
    defineTool({
      name: 'close_agent',
      machine: 'agents',
      description: 'Stop a subagent and free it; its session is kept. Closing one that finished frees a place for another.',
      parameters: z.object({ agent_id: idParameter }),
      execute: (args, context) =>
        act(context, async (subagents) => {
          await subagents.close(args.agent_id);
          return `Subagent '${args.agent_id}' closed`;
        }),
    }),
  ];
}

/** Runs `work` on the context's children; a refusal or failure becomes an error result the model reads. */
function act(context: ToolContext, work: (subagents: SubagentControl) => Promise<ToolOutput | string>): Promise<ToolOutput | string> {
  const subagents = context.subagents;
  if (!subagents) return Promise.resolve(errorResult('Subagents are not available here.'));
  return asResult(context, () => work(subagents));
}

function firstLine(task: string): string {
  const line = task.trim().split('\n')[0]!;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
