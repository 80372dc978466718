/**
 * The `create` arguments besides the schedule, checked, and the job they make.
 */
import type { TurnSeat } from '../../tools/turn-seat.ts';
import type { Job, JobTarget, MissedPolicy } from './job.ts';
import type { ParsedSchedule, ScheduleArguments } from './parse-schedule.ts';
import { ScheduleError } from './schedule-error.ts';

/** Who asks: the creator of a job or an admin may change it; `fromJob` when a job's own turn asks. */
export interface SchedulerActor {
  id: string;
  name?: string;
  admin: boolean;
  fromJob: boolean;
}

/** The `create` arguments: a schedule (see {@link ScheduleArguments}) and what to do where. */
export interface NewJob extends ScheduleArguments {
  /** What the agent is asked to do when the job fires (at most 4,000 characters). */
  prompt: string;
  /** At most 100 characters. */
  name?: string;
  /** Where the job's turn runs; the gateway resolves `deliver` into it. */
  target: JobTarget;
  /** The profile the job's turns run with. */
  profile: string;
  /** The seat of the turn (or the operator) that sets the job: its runs get no more (see `Job.seat`). */
  seat: TurnSeat;
  /** Default `run_once`. */
  missed?: MissedPolicy;
  /** A pipeline to start instead of a turn (its name: letters, digits, `-`, `_`). */
  pipeline?: string;
}

const maxPromptLength = 4_000;
const maxNameLength = 100;

/** The prompt, name, missed policy and pipeline of `input`, trimmed; throws a {@link ScheduleError} (`invalid`) for wrong ones. */
export function checkNewJob(input: NewJob): { prompt: string; name: string | undefined; missed: MissedPolicy; pipeline: string | undefined } {
  const prompt = typeof input.prompt === 'string' ? input.prompt.trim() : '';
  if (prompt === '') throw new ScheduleError('invalid', 'prompt must say what to do when the job runs; it is empty');
  if (prompt.length > maxPromptLength) throw new ScheduleError('invalid', `prompt is ${prompt.length} characters long; at most ${maxPromptLength} are allowed`);
  const name = typeof input.name === 'string' && input.name.trim() !== '' ? input.name.trim() : undefined;
  if (name !== undefined && name.length > maxNameLength) throw new ScheduleError('invalid', `name is ${name.length} characters long; at most ${maxNameLength} are allowed`);
  const missed = input.missed ?? 'run_once';
  if (missed !== 'run_once' && missed !== 'skip') throw new ScheduleError('invalid', `missed must be "run_once" or "skip", got ${JSON.stringify(missed)}`);
  const pipeline = typeof input.pipeline === 'string' && input.pipeline.trim() !== '' ? input.pipeline.trim() : undefined;
  if (pipeline !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(pipeline)) throw new ScheduleError('invalid', `pipeline must be a pipeline's name (letters, digits, - and _), got ${JSON.stringify(pipeline)}`);
  return { prompt, name, missed, pipeline };
}

/** A new active job with id `id`, created by `actor` at `now`. */
export function buildJob(id: string, input: NewJob, checked: ReturnType<typeof checkNewJob>, parsed: ParsedSchedule, actor: SchedulerActor, now: number): Job {
  return {
    id,
    name: checked.name,
    prompt: checked.prompt,
    ...(checked.pipeline ? { pipeline: checked.pipeline } : {}),
    schedule: parsed.schedule,
    timezone: parsed.timezone,
    target: input.target,
    creator: actor.name === undefined ? { id: actor.id } : { id: actor.id, name: actor.name },
    seat: input.seat,
    profile: input.profile,
    repeat: parsed.repeat,
    runs: 0,
    missed: checked.missed,
    state: 'active',
    nextRunAt: parsed.nextRunAt,
    consecutiveFailures: 0,
    createdAt: now,
    fromJob: actor.fromJob || undefined,
  };
}
