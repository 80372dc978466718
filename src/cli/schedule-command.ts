/**
 * `operator schedule list|add|rm|pause|resume|run`: the scheduled jobs, from the command line. While
 * the gateway runs, its scheduler holds the jobs, so the request goes to it (the URL and token
 * are in OPERATOR_HOME/gateway.json); when no gateway runs, the jobs are changed in the store
 * directly. Either way the answers are the same (see `gateway/schedule-control.ts`).
 */
import { conversationModel, JobSpending } from '../gateway/budget/job-spending.ts';
import { SpendBook } from '../gateway/budget/spend-book.ts';
import { loadConfig } from '../gateway/config/index.ts';
import { scheduleControlPath } from '../gateway/control/control-route.ts';
import { boundProfile } from '../gateway/conversations.ts';
import { KnownConversations } from '../gateway/known-conversations.ts';
import { applyScheduleRequest, cliActor, findTarget, schedulerSettings, type ScheduleReply, type ScheduleRequest } from '../gateway/schedule-control.ts';
import { Scheduler, type Job } from '../gateway/scheduler/index.ts';
import { createModelClient, resolveModel } from '../llm/model-client.ts';
import { ProfileBindingStore } from '../resources/profile-binding.ts';
import { assertProfile } from '../runtime/profile-check.ts';
import { createStoreFromEnv, operatorHome } from '../store/from-env.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';
import { runControlCommand } from './gateway-request.ts';
import { configuredBudgets } from '../gateway/config/budget-schema.ts';

/** The usage text of `operator schedule`. */
export const scheduleUsage = [
  'operator schedule list [--json]',
  '       operator schedule add --to PLATFORM:CONVERSATION[:THREAD] WHEN [options] PROMPT...',
  '       operator schedule rm ID | pause ID | resume ID | run ID',
  '',
  '  list              every job: state, conversation, schedule, next and last run, spend today (--json: as JSON)',
  '  add               a job in a conversation the bot has talked in, e.g. --to telegram:-1001234;',
  '                    says its estimated cost a run and a day, and the job spending caps',
  '    WHEN            one of --at ISO-TIME-WITH-OFFSET, --in 20m, --every 2h, --cron "0 9 * * 1"',
  '    --timezone Z    IANA zone for --cron and the times shown (default: the configured one)',
  '    --name NAME     a short name',
  '    --repeat N      with --every or --cron: stop after N runs',
  '    --missed skip   skip a run missed while the gateway was down (default: run it once, within 6 h)',
  '    --profile NAME  profile the job runs with (default: the one bound to the conversation)',
  '    --pipeline NAME start this pipeline when the job runs, with PROMPT as its goal',
  '    PROMPT          what the agent is asked to do when the job runs',
  '  rm ID             remove a job',
  '  pause ID          stop a job from running until it is resumed',
  '  resume ID         let a paused job run again',
  '  run ID            run a job once now, besides its schedule (needs the running gateway)',
  '',
  'Works on the running gateway when there is one, else on the store (OPERATOR_HOME, OPERATOR_STORE).',
].join('\n');

/** Runs `operator schedule <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runScheduleCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = parseScheduleArgs(args);
  return runControlCommand(
    {
      path: scheduleControlPath,
      request: parsed.request,
      changes: parsed.request.action !== 'list',
      json: parsed.json,
      fromGateway: (answer) => ({ ok: answer.ok, text: answer.text, data: Array.isArray(answer.jobs) ? (answer.jobs as Job[]) : [] }),
      fromStore: async () => {
        const reply = await applyToStore(parsed.request, env);
        return { ok: reply.ok, text: reply.text, data: reply.jobs };
      },
    },
    env,
  );
}

/** The request the arguments ask for; throws a {@link UsageError} for the person typing them. */
export function parseScheduleArgs(args: string[]): { request: ScheduleRequest; json: boolean } {
  const parsed = parseCommandArgs(args, {
    json: { type: 'boolean' },
    to: { type: 'string' },
    at: { type: 'string' },
    in: { type: 'string' },
    every: { type: 'string' },
    cron: { type: 'string' },
    timezone: { type: 'string' },
    name: { type: 'string' },
    repeat: { type: 'string' },
    missed: { type: 'string' },
    profile: { type: 'string' },
    pipeline: { type: 'string' },
  });
  const { values } = parsed;
  const [subcommand, ...positionals] = parsed.positionals;
  const addOnly = (['to', 'at', 'in', 'every', 'cron', 'timezone', 'name', 'repeat', 'missed', 'profile', 'pipeline'] as const).filter((name) => values[name] !== undefined);
  const json = values.json === true;
  switch (subcommand) {
    case 'list':
      if (positionals.length > 0 || addOnly.length > 0) throw new UsageError('list takes no arguments besides --json');
      return { request: { action: 'list' }, json };
    case 'add': {
      if (values.to === undefined) throw new UsageError('add needs --to PLATFORM:CONVERSATION[:THREAD], the conversation the job runs in');
      const prompt = positionals.join(' ').trim();
      if (prompt === '') throw new UsageError('add needs a prompt: what the agent is asked to do when the job runs');
      if (values.missed !== undefined && values.missed !== 'run_once' && values.missed !== 'skip') throw new UsageError(`--missed is run_once or skip, not "${values.missed}"`);
      const when = (['at', 'in', 'every', 'cron'] as const).filter((name) => values[name] !== undefined);
      if (when.length !== 1) throw new UsageError(`add needs exactly one of --at, --in, --every, --cron${when.length > 1 ? `; got ${when.map((name) => `--${name}`).join(' and ')}` : ''}`);
      if (values.repeat !== undefined && !/^\d+$/.test(values.repeat)) throw new UsageError(`--repeat takes a whole number, not "${values.repeat}"`);
      const repeat = values.repeat === undefined ? undefined : Number(values.repeat);
      const { at, in: delay, every, cron, timezone, name, profile, pipeline } = values;
      const request = { action: 'add' as const, to: values.to, prompt, at, in: delay, every, cron, timezone, name, repeat, missed: values.missed as 'run_once' | 'skip' | undefined, profile, pipeline };
      return { request: Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as typeof request, json };
    }
    case 'rm':
    case 'pause':
    case 'resume':
    case 'run':
      if (positionals.length !== 1 || addOnly.length > 0) throw new UsageError(`${subcommand} takes one job id`);
      return { request: { action: subcommand, id: positionals[0]! }, json };
    default:
      throw new UsageError(subcommand === undefined ? 'operator schedule needs a subcommand' : `unknown subcommand "${subcommand}"`);
  }
}

/** Applies the request to the store directly: no gateway runs, so nothing else changes the jobs meanwhile. */
async function applyToStore(request: ScheduleRequest, env: NodeJS.ProcessEnv): Promise<ScheduleReply> {
  if (env.OPERATOR_STORE?.trim() === 'memory') {
    return { ok: false, text: 'No gateway is running, and OPERATOR_STORE=memory keeps no jobs between processes: there is nothing to work on.', jobs: [] };
  }
  const { config } = loadConfig(env);
  const store = createStoreFromEnv(env);
  try {
    const scheduler = new Scheduler({
      store,
      settings: schedulerSettings(config.schedule),
      // Never started here: the gateway runs the jobs.
      run: () => Promise.reject(new Error('the command line does not run jobs')),
      notify: async () => {},
    });
    await scheduler.load();
    const known = new KnownConversations(store);
    const bindings = new ProfileBindingStore(store);
    const log = (line: string) => process.stderr.write(`operator schedule: ${line}\n`);
    // Read only here: a job's spend today, and the models for a new job's estimate.
    const model = conversationModel(store, (spec) => (spec === undefined ? createModelClient(env).info : resolveModel(spec, env).info));
    const jobs = new JobSpending({ book: new SpendBook({ store, log }), store, budgets: configuredBudgets(config), model, log });
    return await applyScheduleRequest(request, {
      scheduler,
      findTarget: (address) => findTarget(known, address),
      profileFor: async (target) => boundProfile(target, cliActor.id, await bindings.bindings(config.profiles)),
      assertProfile: (name) => assertProfile(name, operatorHome(env)),
      jobs,
    });
  } finally {
    await store.close();
  }
}
