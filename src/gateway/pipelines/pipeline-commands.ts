/**
 * The chat's pipeline commands. `/run` lists the pipelines here; `/run NAME GOAL` starts one;
 * `/run stop ID` and `/run resume ID`; `/run show ID` shows a run from its folder (the owner's
 * and admins' alone); `/runs` lists this conversation's runs; `/answer [ID] TEXT` answers a gate
 * by typing. Starting, stopping and resuming a run are for admins and those with
 * the `shell` tool group in the conversation (the owner's seats; others by grant): a pipeline runs
 * commands and changes files. Its agent steps work with the starter's own tools there (the run keeps
 * the seat they typed it from). Anyone who
 * may talk here may list; a gate is answered by whoever it allows (see `chat-gates.ts`).
 */
import { errorMessage } from '../../core/errors.ts';
import type { SeatTools } from '../access/tool-grants.ts';
import type { Command, CommandContext } from '../commands.ts';
import { seatOf } from '../turn-access.ts';
import { describeRunFolder, readRunFolder } from '../../pipelines/run-folder/read-run-folder.ts';

/** `/run`, `/run NAME GOAL`, `/run stop ID`, `/run resume ID`, `/run show ID`. */
export const runPipelineCommand: Command = {
  name: 'run',
  description: 'Pipelines: /run NAME GOAL starts one; /run lists them',
  async run(context) {
    const { gateway, message, args } = context;
    const [first = '', ...rest] = args.trim().split(/\s+/).filter((word) => word !== '');
    const conversation = await gateway.conversations.get(message);
    if (first === '') {
      const names = await gateway.pipelines.available(conversation.profile);
      return names.length > 0 ? `Pipelines: ${names.join(', ')}. Start one with /run NAME GOAL.` : 'There are no pipelines here.';
    }
    const rights = seatRights(context);
    if (first === 'show' && rest.length === 1) return showRun(context, rights, rest[0]!);
    const refusal = mayRun(context, rights);
    if (refusal) return refusal;
    if (first === 'stop' && rest.length === 1) return gateway.pipelines.stop(rest[0]!) ? `Stopping run ${rest[0]}; /run resume ${rest[0]} goes on with it.` : `Run ${rest[0]} is not running.`;
    if (first === 'resume' && rest.length === 1) {
      await gateway.pipelines.resume(rest[0]!, message.sessionKey);
      return `Going on with run ${rest[0]}.`;
    }
    const goal = args.trim().slice(first.length).trim();
    const seat = { sessionKey: message.sessionKey, address: message.address, scope: message.scope, starterId: message.sender.id, profile: conversation.profile, makerSeat: seatOf(rights) };
    try {
      const id = await gateway.pipelines.start(seat, first, goal);
      return `Started run ${id} of ${first}${goal ? `: ${goal}` : ''}. /run stop ${id} stops it.`;
    } catch (error) {
      return errorMessage(error);
    }
  },
};

/**
 * `/run show ID`: the run from its folder, as `operator pipeline show` prints it. The owner's and
 * the admins' alone: a run's steps may hold what another conversation said (its prompts).
 */
async function showRun({ gateway, admin }: CommandContext, rights: SeatTools, id: string): Promise<string> {
  if (!admin && !rights.owner) return "Only the owner and admins may see a run's steps (they may hold what other conversations said).";
  try {
    return describeRunFolder(await readRunFolder(gateway.runtime.home, id)).join('\n');
  } catch (error) {
    return errorMessage(error);
  }
}

/** `/runs`: this conversation's runs, the latest first. */
export const listRunsCommand: Command = {
  name: 'runs',
  description: 'Pipeline runs here',
  async run({ gateway, message }) {
    const runs = (await gateway.pipelines.runsOf(message.sessionKey)).slice(0, 10);
    if (runs.length === 0) return 'No pipeline runs here.';
    return runs.map((run) => `${run.id} ${run.pipeline}: ${run.status}${run.status === 'finished' ? '' : ` at ${run.currentNode}`}${run.error ? ` (${run.error})` : ''}`).join('\n');
  },
};

/** `/answer [ID] TEXT`: answers a waiting gate by typing. */
export const answerGateCommand: Command = {
  name: 'answer',
  description: "Answer a pipeline's question: /answer TEXT",
  async run({ gateway, message, args }) {
    return gateway.gates.answer(args, message.sessionKey, message.sender.id, message.sender.name);
  },
};

/** The tools `context`'s sender has here. */
function seatRights({ gateway, message, admin }: CommandContext): SeatTools {
  const { platform, conversationId, threadId } = message.address;
  return gateway.grants.seatTools({ platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin });
}

/** Why `context`'s sender, with `rights` here, may not start or steer runs here, or undefined. */
function mayRun({ admin }: CommandContext, rights: SeatTools): string | undefined {
  return admin || rights.owner || rights.groups.has('shell') ? undefined : 'Running pipelines here needs the shell tools (a pipeline runs commands and changes files): ask an admin for a grant.';
}
