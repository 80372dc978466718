/**
 * The `schedule` tool: the agent schedules its own follow-ups in the conversation they came from
 * (reminders, recurring jobs, check-backs), lists them, and cancels, pauses or resumes them. It
 * acts for the person whose message started the turn, and a job it sets keeps the turn's seat
 * (its tools and workspace): a job's turn never has more, wherever it delivers. Every refusal and
 * every invalid argument comes back as a precise message for the model. A job made says what it is
 * expected to cost and the job caps in force; a listing, what each job spent today.
 */
import * as z from 'zod';
import { defineTool, type Tool, type TurnContext } from '../tools/tool.ts';
import { leastSeat } from '../tools/turn-seat.ts';
import type { JobSpending } from './budget/job-spending.ts';
import { ScheduleError, type Job, type JobTarget, type Scheduler, type SchedulerActor } from './scheduler/index.ts';
import { formatAddress } from './known-conversations.ts';
import { jobLabel } from './scheduler/index.ts';

/** What the tool needs from the gateway. */
export interface ScheduleToolOptions {
  scheduler: Scheduler;
  /** Where a job created in `turn` runs (`deliver`: `origin` or `platform:conversation[:thread]`); throws a `ScheduleError`. */
  target(turn: TurnContext, deliver: string | undefined): Promise<{ target: JobTarget; profile: string }>;
  /** The jobs' spending (asked for when used), for a new job's estimate and a listing's spend; unset: neither is said. */
  jobs?: () => Pick<JobSpending, 'created' | 'describeAll'>;
}

// Numbers and strings are left loose (`unknown` in the scheduler): its messages say precisely
// what is wrong, better than a schema error would.
const parameters = z.object({
  action: z.enum(['create', 'list', 'cancel', 'pause', 'resume']),
  prompt: z.string().optional().describe('create: what you will be asked to do when it fires, written as an instruction to yourself.'),
  at: z.string().optional().describe('create: one time, ISO 8601 with offset, e.g. 2026-11-25T09:00:00+01:00.'),
  delay_seconds: z.number().optional().describe('create: one time, this many seconds from now.'),
  every: z.string().optional().describe('create: repeat at this interval, e.g. 30m, 2h, 1d (at least 5 minutes).'),
  cron: z.string().optional().describe('create: repeat on a 5-field cron expression, e.g. "0 9 * * 1" for Mondays 09:00.'),
  timezone: z.string().optional().describe('create: IANA time zone for cron and the answer, e.g. Europe/Berlin (default: the configured one).'),
  name: z.string().optional().describe('create: a short name.'),
  deliver: z.string().optional().describe('create: "origin" (default, this conversation) or platform:conversation[:thread].'),
  repeat: z.number().optional().describe('create: for every/cron, stop after this many runs.'),
  missed: z.enum(['run_once', 'skip']).optional().describe('create: a run missed while the gateway was down runs once when it is back (run_once, default, within 6 hours) or is skipped.'),
  id: z.string().optional().describe('cancel, pause, resume: the job id.'),
  pipeline: z.string().optional().describe('create: start this pipeline (e.g. "task") when it fires, with prompt as its goal, instead of asking you (needs the shell tools).'),
});

/** Creates the `schedule` tool over the gateway's scheduler. */
export function createScheduleTool(options: ScheduleToolOptions): Tool<typeof parameters> {
  const { scheduler } = options;
  return defineTool({
    name: 'schedule',
    machine: 'none',
    // A job runs later with this seat's tools: making or changing one acts; listing does not.
    acts: (args) => args['action'] !== 'list',
    description:
      'Schedule a follow-up in this conversation: a reminder, a recurring job or a check-back. When it fires you get its ' +
      'prompt as a message marked as scheduled, and your answer is sent here. create needs prompt and exactly one of ' +
      'at, delay_seconds, every, cron. Also list, cancel, pause, resume (by id).',
    parameters,
    async execute(args, context) {
      const turn = context.turn;
      if (!turn) return { content: 'Error: schedule works only in a chat conversation.', isError: true };
      const actor: SchedulerActor = { id: turn.senderId, name: turn.senderName, admin: turn.admin, fromJob: turn.scheduled };
      try {
        switch (args.action) {
          case 'create': {
            if (!args.prompt?.trim()) return { content: 'Error: create needs a prompt: what to do when the job fires.', isError: true };
            // A pipeline runs commands and changes files: its job is for those who may run it here.
            if (args.pipeline && turn.tools && !turn.tools.has('shell')) return { content: 'Error: scheduling a pipeline needs the shell tools in this conversation.', isError: true };
            const { target, profile } = await options.target(turn, args.deliver);
            // The job keeps this turn's seat: its runs never get more, wherever they deliver.
            const { job, nextRun } = await scheduler.create({ ...args, prompt: args.prompt, target, profile, seat: turn.seat ?? leastSeat }, actor);
            // The job is made whatever happens to its estimate.
            const cost = await options.jobs?.().created(job).catch(() => undefined);
            return `Scheduled job ${job.id}${job.name ? ` "${job.name}"` : ''}: next run ${nextRun.words}, ${nextRun.iso}.${cost ? ` ${cost}` : ''}`;
          }
          case 'list': {
            const jobs = scheduler.list({ sessionKey: turn.sessionKey });
            return describeJobs(scheduler, jobs, false, await options.jobs?.().describeAll(jobs));
          }
          default: {
            if (!args.id?.trim()) return { content: `Error: ${args.action} needs the job's id (see action list).`, isError: true };
            const job = await scheduler[args.action](args.id, actor);
            const done = { cancel: 'Cancelled', pause: 'Paused', resume: 'Resumed' }[args.action];
            const next = args.action === 'resume' ? scheduler.nextRunOf(job) : undefined;
            return `${done} job ${jobLabel(job)}.${next ? ` Next run ${next.words}, ${next.iso}.` : ''}`;
          }
        }
      } catch (error) {
        if (error instanceof ScheduleError) return { content: `Error: ${error.message}`, isError: true };
        throw error;
      }
    },
  });
}

/**
 * One line per job: id, name, state, schedule, next run, last outcome and its spend (from `spend`,
 * by id, where known); with `everywhere`, also each job's conversation (for a listing of every
 * conversation's jobs).
 */
export function describeJobs(scheduler: Scheduler, jobs: readonly Job[], everywhere = false, spend?: ReadonlyMap<string, string>): string {
  if (jobs.length === 0) return everywhere ? 'No scheduled jobs.' : 'No scheduled jobs in this conversation.';
  return jobs
    .map((job) => {
      const next = job.state === 'active' ? scheduler.nextRunOf(job) : undefined;
      const parts = [`${job.id}${job.name ? ` "${job.name}"` : ''}`, job.state === 'paused' ? `paused${job.pausedReason ? ` (${job.pausedReason})` : ''}` : job.state];
      if (everywhere) parts.push(`in ${formatAddress(job.target.address)}`);
      if (next) parts.push(`next ${next.words}`);
      if (job.lastStatus) parts.push(`last run ${job.lastStatus}${job.lastError ? `: ${job.lastError}` : ''}`);
      const spent = spend?.get(job.id);
      if (spent) parts.push(spent);
      parts.push(`${job.pipeline ? `pipeline ${job.pipeline}, goal` : 'prompt'}: ${job.prompt.length > 80 ? `${job.prompt.slice(0, 77)}...` : job.prompt}`);
      return `- ${parts.join('; ')}`;
    })
    .join('\n');
}
