/**
 * `operator schedule list|add|rm|pause|resume|run`, applied to a scheduler. The CLI sends its request
 * to the running gateway (see `control-route.ts`), whose scheduler holds the jobs, or applies it
 * to the store itself when no gateway runs; both go through {@link applyScheduleRequest}, so the
 * answers are the same either way.
 *
 * The command line acts as an admin (whoever can run it owns the gateway's files), but a job it
 * adds runs like one from an ordinary member of the conversation: its creator is `cli`, which no
 * platform user is, so the job's turn has no admin rights in the chat. Adding a job answers with
 * its estimated cost and the job caps; the list shows each job's spend today (see
 * `budget/job-spending.ts`).
 */
import * as z from 'zod';
import { ConfigurationError } from '../core/errors.ts';
import { ownerSeat } from '../tools/turn-seat.ts';
import type { JobSpending } from './budget/job-spending.ts';
import { durationFormat, formatDuration, formatIsoInZone, jobLabel, parseDuration, ScheduleError, type Job, type JobTarget, type Scheduler, type SchedulerActor, type SchedulerSettings } from './scheduler/index.ts';
import type { ScheduleSettings } from './config/index.ts';
import { formatAddress, parseAddress, type KnownConversations } from './known-conversations.ts';
import type { Gateway } from './gateway.ts';

/** Who the command line is to the scheduler. */
export const cliActor: SchedulerActor = { id: 'cli', name: 'the operator command line', admin: true, fromJob: false };

/** A request of `operator schedule`, as it travels to the gateway. */
export const scheduleRequestSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('list') }).strict(),
  z
    .object({
      action: z.literal('add'),
      /** `platform:conversation[:thread]`, a conversation the gateway has talked in. */
      to: z.string(),
      prompt: z.string(),
      at: z.string().optional(),
      /** A duration from now (`20m`, `1h30m`). */
      in: z.string().optional(),
      every: z.string().optional(),
      cron: z.string().optional(),
      timezone: z.string().optional(),
      name: z.string().optional(),
      repeat: z.number().optional(),
      missed: z.enum(['run_once', 'skip']).optional(),
      /** Default: the profile bound to the conversation. */
      profile: z.string().optional(),
      /** A pipeline to start when it fires, with the prompt as its goal. */
      pipeline: z.string().optional(),
    })
    .strict(),
  z.object({ action: z.enum(['rm', 'pause', 'resume', 'run']), id: z.string() }).strict(),
]);

/** A request of `operator schedule`. */
export type ScheduleRequest = z.infer<typeof scheduleRequestSchema>;

/** The answer: the text to print, and the jobs concerned (for `--json`). */
export interface ScheduleReply {
  /** False when the request was refused; `text` then says why. */
  ok: boolean;
  text: string;
  jobs: Job[];
}

/** What applying a request needs besides the scheduler. */
export interface ScheduleControl {
  scheduler: Scheduler;
  /** The conversation at `platform:conversation[:thread]`; throws a `ScheduleError` when unknown. */
  findTarget(address: string): Promise<JobTarget>;
  /** The profile a job aimed at `target` runs with when none is named. */
  profileFor(target: JobTarget): Promise<string>;
  /** Throws unless `name` is a profile that exists. */
  assertProfile(name: string): void;
  now?: () => number;
  /** Who acts (default {@link cliActor}; the admin console names itself). */
  actor?: SchedulerActor;
  /** The jobs' spending, for a new job's estimate and the list's spend; unset: neither is said. */
  jobs?: Pick<JobSpending, 'created' | 'describeAll'>;
}

/** Applies `request`; a refusal (unknown id, invalid schedule, unknown conversation) is an answer with `ok: false`. */
export async function applyScheduleRequest(request: ScheduleRequest, control: ScheduleControl): Promise<ScheduleReply> {
  const { scheduler } = control;
  const actor = control.actor ?? cliActor;
  try {
    switch (request.action) {
      case 'list': {
        const jobs = scheduler.list();
        const spend = await control.jobs?.describeAll(jobs);
        return { ok: true, text: describeJobsForCli(jobs, control.now?.() ?? Date.now(), spend), jobs };
      }
      case 'add': {
        const { to, in: delay, profile: named, action: _action, ...args } = request;
        const target = await control.findTarget(to);
        if (named !== undefined) control.assertProfile(named);
        const profile = named ?? (await control.profileFor(target));
        const delaySeconds = delay === undefined ? undefined : parseIn(delay);
        // Set by the machine's owner: its runs have the seat of `cli` in the conversation, nothing kept caps it.
        const { job, nextRun } = await scheduler.create({ ...args, delay_seconds: delaySeconds, target, profile, seat: ownerSeat }, actor);
        const cost = await jobCost(control, job);
        return { ok: true, text: `Scheduled job ${jobLabel(job)} in ${formatAddress(target.address)} with profile ${profile}: next run ${nextRun.words}, ${nextRun.iso}.${cost}`, jobs: [job] };
      }
      default: {
        const verb = ({ rm: 'cancel', pause: 'pause', resume: 'resume', run: 'runNow' } as const)[request.action];
        const job = await scheduler[verb](request.id, actor);
        const next = verb === 'resume' ? scheduler.nextRunOf(job) : undefined;
        const done = { cancel: 'Removed', pause: 'Paused', resume: 'Resumed', runNow: 'Started a run of' }[verb];
        return { ok: true, text: `${done} job ${jobLabel(job)}.${next ? ` Next run ${next.words}, ${next.iso}.` : ''}`, jobs: [job] };
      }
    }
  } catch (error) {
    if (error instanceof ScheduleError) return { ok: false, text: error.message, jobs: [] };
    if (error instanceof ConfigurationError) return { ok: false, text: error.message, jobs: [] };
    throw error;
  }
}

/**
 * The conversation at `platform:conversation[:thread]` (a job's `deliver`, the CLI's `--to`), if
 * the gateway has ever talked there; else a {@link ScheduleError} saying what to do.
 */
export async function findTarget(known: KnownConversations, address: string): Promise<JobTarget> {
  const parsed = parseAddress(address);
  if (!parsed) throw new ScheduleError('invalid', `a conversation is named platform:conversation[:thread], e.g. "telegram:-1001234", not "${address}"`);
  const found = await known.find(parsed);
  if (!found) throw new ScheduleError('invalid', `operator has never talked in ${address.trim()}; someone must write there (mentioning the bot) first`);
  return found;
}

/** ` Estimated cost: ...` for a new job, or nothing when it cannot be said (the job is made either way). */
async function jobCost(control: ScheduleControl, job: Job): Promise<string> {
  const cost = await control.jobs?.created(job).catch(() => undefined);
  return cost ? ` ${cost}` : '';
}

/** `--in 20m` in seconds. */
function parseIn(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms === 0) throw new ScheduleError('invalid', `--in must be a duration of ${durationFormat}, not "${text}"`);
  return ms / 1000;
}

/** The scheduler's settings from the configuration (a time zone only when one is configured). */
export function schedulerSettings(config: ScheduleSettings): Partial<SchedulerSettings> {
  return {
    ...(config.timezone ? { timezone: config.timezone } : {}),
    maxJobsPerPerson: config.maxJobsPerPerson,
    maxJobsPerConversation: config.maxJobsPerConversation,
    minIntervalMs: Math.round(config.minIntervalMinutes * 60_000),
    graceMs: Math.round(config.missedGraceHours * 3_600_000),
    allowJobsFromJobs: config.allowJobsFromJobs,
  };
}

/**
 * Every job, a block each: id and name, state, where, schedule, next and last run, its spend (from
 * `spend`, by id, where known), who made it. Times are in each job's own zone.
 */
export function describeJobsForCli(jobs: readonly Job[], now: number, spend?: ReadonlyMap<string, string>): string {
  if (jobs.length === 0) return 'No scheduled jobs.';
  return jobs
    .map((job) => {
      const lines = [`${job.id}${job.name ? `  "${job.name}"` : ''}  ${job.state}${job.state === 'paused' && job.pausedReason ? ` (${job.pausedReason})` : ''}`];
      lines.push(`  in        ${formatAddress(job.target.address)} (profile ${job.profile}), set by ${job.creator.name ?? job.creator.id}`);
      lines.push(`  schedule  ${describeSchedule(job)}`);
      if (job.nextRunAt !== null) lines.push(`  next      ${formatIsoInZone(job.nextRunAt, job.timezone)}${job.nextRunAt <= now ? ' (due)' : ''}`);
      if (job.lastRunAt !== undefined || job.lastStatus !== undefined) {
        const at = job.lastRunAt === undefined ? '' : `${formatIsoInZone(job.lastRunAt, job.timezone)} `;
        const delivery = job.lastDelivery ? `, answer ${job.lastDelivery.status}${job.lastDelivery.error ? ` (${job.lastDelivery.error})` : ''}` : '';
        lines.push(`  last      ${at}${job.lastStatus ?? ''}${job.lastError ? `: ${job.lastError}` : ''}${delivery}`);
      }
      const spent = spend?.get(job.id);
      if (spent) lines.push(`  spend     ${spent}`);
      if (job.pipeline) lines.push(`  pipeline  ${job.pipeline}`);
      lines.push(`  ${job.pipeline ? 'goal    ' : 'prompt  '}  ${job.prompt.length > 200 ? `${job.prompt.slice(0, 197)}...` : job.prompt}`);
      return lines.map(oneLine).join('\n');
    })
    .join('\n\n');
}

/** A line of the listing with the line breaks of names, prompts and errors flattened, so each job stays one block. */
function oneLine(line: string): string {
  return line.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** `once at 2026-11-25T09:00:00+01:00`, `every 2h`, `cron "0 9 * * 1" in Europe/Berlin`, with the repeat count. */
export function describeSchedule(job: Job): string {
  const repeat = job.repeat === undefined ? '' : `, ${job.runs} of ${job.repeat} runs`;
  switch (job.schedule.kind) {
    case 'at':
      return `once at ${formatIsoInZone(job.schedule.at, job.timezone)}`;
    case 'every':
      return `every ${formatDuration(job.schedule.everyMs)}${repeat}`;
    default:
      return `cron "${job.schedule.expression}" in ${job.timezone}${repeat}`;
  }
}

/** What `operator schedule` acts on while `gateway` runs (see the control route). */
export function gatewayScheduleControl(gateway: Pick<Gateway, 'scheduler' | 'known' | 'conversations' | 'runtime'> & Partial<Pick<Gateway, 'spending'>>): ScheduleControl {
  return {
    scheduler: gateway.scheduler,
    jobs: gateway.spending?.jobs,
    findTarget: (address) => findTarget(gateway.known, address),
    profileFor: (target) => gateway.conversations.profileFor(target, cliActor.id),
    assertProfile: (name) => gateway.runtime.assertProfile(name),
  };
}
