/**
 * The console's scheduled jobs: listed, paused, resumed, cancelled and run now through
 * `applyScheduleRequest`, the code `operator schedule` runs, so the console's answers are the
 * command line's. The console acts as an admin that no platform user is.
 */
import { applyScheduleRequest, describeSchedule, gatewayScheduleControl, type ScheduleReply } from '../schedule-control.ts';
import { formatAddress } from '../known-conversations.ts';
import type { Job, SchedulerActor } from '../scheduler/index.ts';
import type { AdminGateway } from './admin-routes.ts';

/** Who the console is to the scheduler (named in a paused job's reason). */
export const consoleActor: SchedulerActor = { id: 'admin-console', name: 'the admin console', admin: true, fromJob: false };

/** A job as the console shows it. */
export interface JobView {
  id: string;
  name?: string;
  state: Job['state'];
  pausedReason?: string;
  /** `platform:conversation[:thread]`. */
  conversation: string;
  sessionKey: string;
  profile: string;
  schedule: string;
  timezone: string;
  nextRunAt: number | null;
  lastRunAt?: number;
  lastStatus?: Job['lastStatus'];
  lastError?: string;
  lastDelivery?: Job['lastDelivery'];
  runs: number;
  running: boolean;
  creator: string;
  /** The prompt (or a pipeline's goal), cut to 300 characters. */
  prompt: string;
  pipeline?: string;
}

/** The actions the console offers on a job. */
export const jobActions = ['pause', 'resume', 'rm', 'run'] as const;

/** One of {@link jobActions}. */
export type JobAction = (typeof jobActions)[number];

/** Every job, soonest next run first. */
export async function listJobs(gateway: AdminGateway): Promise<JobView[]> {
  const reply = await applyScheduleRequest({ action: 'list' }, control(gateway));
  return reply.jobs.map(jobView);
}

/** Applies `action` to job `id`; a refusal (unknown id, a done job) is an answer with `ok: false`. */
export function changeJob(gateway: AdminGateway, action: JobAction, id: string): Promise<ScheduleReply> {
  return applyScheduleRequest({ action, id }, control(gateway));
}

function control(gateway: AdminGateway) {
  return { ...gatewayScheduleControl(gateway), actor: consoleActor };
}

function jobView(job: Job): JobView {
  return {
    id: job.id,
    ...(job.name !== undefined && { name: job.name }),
    state: job.state,
    ...(job.pausedReason !== undefined && { pausedReason: job.pausedReason }),
    conversation: formatAddress(job.target.address),
    sessionKey: job.target.sessionKey,
    profile: job.profile,
    schedule: describeSchedule(job),
    timezone: job.timezone,
    nextRunAt: job.nextRunAt,
    ...(job.lastRunAt !== undefined && { lastRunAt: job.lastRunAt }),
    ...(job.lastStatus !== undefined && { lastStatus: job.lastStatus }),
    ...(job.lastError !== undefined && { lastError: job.lastError }),
    ...(job.lastDelivery !== undefined && { lastDelivery: job.lastDelivery }),
    runs: job.runs,
    running: job.claim !== undefined,
    creator: job.creator.name ?? job.creator.id,
    prompt: job.prompt.length > 300 ? `${job.prompt.slice(0, 297)}...` : job.prompt,
    ...(job.pipeline !== undefined && { pipeline: job.pipeline }),
  };
}
