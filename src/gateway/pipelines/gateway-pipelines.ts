/**
 * The gateway's side of chat pipelines: the gates, the runs and the `run_pipeline` tool made over
 * the gateway's adapters, admins and tool rights, and a run's turn (the tools and workspace of the
 * person who started it, as their own turns there have, and never more than the seat of the turn
 * that started it: a run the model started in a scheduled job's turn has that turn's seat). Its
 * model calls pass the gateway's spending gate as that turn's would, and count for the run (and
 * for the scheduled job's run that started it, if one did).
 */
import { errorMessage } from '../../core/errors.ts';
import type { Tool, TurnContext } from '../../tools/tool.ts';
import { leastSeat, readSeat } from '../../tools/turn-seat.ts';
import type { Job, RunOutcome } from '../scheduler/index.ts';
import { createRunPipelineTool } from './run-pipeline-tool.ts';
import { tempDirectoryOf } from '../conversations.ts';
import type { Gateway } from '../gateway.ts';
import type { TurnAccess } from '../turn-access.ts';
import { ChatGates } from './chat-gates.ts';
import { ChatPipelines } from './chat-pipelines.ts';

/** The gates and runs of `gateway`. */
export function createGatewayPipelines(gateway: Gateway, turnAccess: TurnAccess): { gates: ChatGates; pipelines: ChatPipelines; tool: Tool } {
  const adapterOf = (platform: string) => gateway.adapters.get(platform);
  const isAdmin = (platform: string, userId: string) => gateway.isAdmin(platform, userId);
  const gates = new ChatGates({ adapterOf, isAdmin, log: gateway.log });
  const pipelines = new ChatPipelines({
    runtime: gateway.runtime,
    gates,
    adapterOf,
    log: gateway.log,
    keepRuns: gateway.config.pipelines.keepRuns,
    // The gateway's gate, as it is when the run calls (it is made after the pipelines).
    spend: { reserve: (request, turn) => gateway.spending.reserve(request, turn) },
    // Asked as the conversation's own turns ask (buttons, timeout, the admins, the hour's allowance).
    async askApproval(sessionKey, request) {
      const conversation = await gateway.conversations.peek(sessionKey)?.catch(() => undefined);
      return conversation ? gateway.approvals.ask(conversation, request) : undefined;
    },
    async turnOf(seat): Promise<TurnContext> {
      const { platform, conversationId, threadId } = seat.address;
      const admin = isAdmin(platform, seat.starterId);
      // The tools a conversation of this profile offers, as its own agent has them.
      const { agent } = await gateway.runtime.createAgent({ sessionKey: seat.sessionKey, profile: seat.profile });
      try {
        const where = { sessionKey: seat.sessionKey, platform, scope: seat.scope, conversationId, threadId, senderId: seat.starterId, admin };
        const access = await turnAccess.forTurn(where, agent.tools, await tempDirectoryOf(gateway.runtime, { agent, profile: seat.profile }), seat.makerSeat);
        return { sessionKey: seat.sessionKey, platform, senderId: seat.starterId, admin, scheduled: false, profile: seat.profile, ...access, ...(seat.job && { job: seat.job }) };
      } finally {
        agent.dispose();
      }
    },
  });
  const tool = createRunPipelineTool({
    allowInGroups: gateway.config.pipelines.toolInGroups,
    inGroup: async (turn) => (await gateway.conversations.peek(turn.sessionKey))?.scope !== 'dm',
    async start(turn, name, goal) {
      const conversation = await gateway.conversations.peek(turn.sessionKey);
      if (!conversation) throw new Error('this conversation is not known to the gateway yet');
      // The run keeps the seat of the turn that starts it (a scheduled job's turn included).
      const makerSeat = turn.seat ?? leastSeat;
      return pipelines.start({ sessionKey: conversation.key, address: conversation.address, scope: conversation.scope, starterId: turn.senderId, profile: conversation.profile, makerSeat }, name, goal);
    },
  });
  return { gates, pipelines, tool };
}

/**
 * A scheduled job's run `run` when it names a pipeline: the pipeline starts in the job's
 * conversation, as its creator with no more than the job's kept seat, with the job's prompt as its
 * goal, and runs on in the background (its progress and questions in the conversation), its calls
 * counting for the job's run. The job's run is `ok` once the pipeline started.
 */
export async function startScheduledPipeline(gateway: Gateway, job: Job, run: string): Promise<RunOutcome> {
  const { target } = job;
  if (!gateway.adapters.has(target.address.platform)) return { status: 'error', error: `no ${target.address.platform} channel is running` };
  try {
    const start = { sessionKey: target.sessionKey, address: target.address, scope: target.scope, starterId: job.creator.id, profile: job.profile, makerSeat: readSeat(job.seat), job: { id: job.id, run } };
    const id = await gateway.pipelines.start(start, job.pipeline!, job.prompt);
    gateway.log(`schedule: job ${job.id} started pipeline ${job.pipeline} (run ${id})`);
    return { status: 'ok' };
  } catch (error) {
    return { status: 'error', error: errorMessage(error) };
  }
}
