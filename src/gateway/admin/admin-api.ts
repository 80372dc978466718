/**
 * The console's JSON API under `/admin/api/`, for the page and for scripts with the bearer token:
 *
 * - `GET conversations?q=&limit=`: the conversations (see `conversation-list.ts`);
 * - `GET conversation?key=`: one conversation, its transcript, its system prompt's parts and its
 *   own memory with sources and the latest changes (see `memory-view.ts`);
 * - `GET jobs`, `POST jobs {action: pause|resume|rm|run, id}`;
 * - `GET pairing`, `POST pairing {action: approve|deny, code}`, `{action: revoke, platform, userId}`
 *   or `{action: revoke-group, group}` (e.g. `telegram:group:-1001234`);
 * - `GET profiles`, `POST profiles {action: reload, profile}`;
 * - `POST settings {key, profile?, model?, think?, tools?}`: a conversation's settings, as an admin's
 *   `/config` there (see `settings-actions.ts`); `GET conversation` shows them;
 * - `GET usage?days=`: usage per day, profile and conversation, with charts;
 * - `GET spending`, `POST spending {action: pause|resume}`: the gateway's spending and its kill
 *   switch, as `operator budget status|pause|resume` (see `spending-actions.ts`); `GET
 *   conversation` shows the conversation's spend today;
 * - `GET runs`: the pipeline runs from their run folders, each with its `link`; `GET run?id=`: one
 *   run, its steps with their prompts and responses (see `pipeline-runs.ts`);
 * - `GET events`: the live feed (Server-Sent Events).
 *
 * Bodies are JSON, checked here (zod at the edge); changes answer `{ ok, text }` in the words of
 * the chat command or CLI verb that does the same. Access, CSRF and origin were checked before.
 */
import * as z from 'zod';
import { bodyLimits } from '../../core/body-limits.ts';
import { readLimitedBody, tooLarge } from '../../core/read-limited-body.ts';
import type { AdminConsoleParts } from './admin-routes.ts';
import { listConversations } from './conversation-list.ts';
import { listPipelineRuns, pipelineRunDetail } from './pipeline-runs.ts';
import type { EventFeed } from './event-feed.ts';
import { changeJob, jobActions, listJobs } from './job-actions.ts';
import { changePairing, listPairing } from './pairing-actions.ts';
import type { ProfileReports } from './profile-actions.ts';
import { conversationMemory } from './memory-view.ts';
import { changeSettings, conversationSettings, settingsChange } from './settings-actions.ts';
import { changeSpending, conversationSpending, spendingChange, spendingView } from './spending-actions.ts';
import { describePrompt } from './prompt-parts.ts';
import { currentSessionId, readTranscript } from './transcript.ts';
import { summarizeUsage } from './usage-summary.ts';

/** An answer to serialize (the console scrubs it), or a response made already (the event stream, 413). */
export type ApiAnswer = { status?: number; body: unknown } | Response;

/** What the API works with. */
export interface AdminApiOptions extends AdminConsoleParts {
  profiles: ProfileReports;
  feed: EventFeed;
}

const jobChange = z.object({ action: z.enum(jobActions), id: z.string().min(1).max(64) }).strict();
const pairingChange = z.discriminatedUnion('action', [
  z.object({ action: z.enum(['approve', 'deny']), code: z.string().min(1).max(64) }).strict(),
  z.object({ action: z.literal('revoke'), platform: z.string().min(1).max(64), userId: z.string().min(1).max(256) }).strict(),
  z.object({ action: z.literal('revoke-group'), group: z.string().min(1).max(320) }).strict(),
]);
const profileChange = z.object({ action: z.literal('reload'), profile: z.string().min(1).max(64) }).strict();

/** Answers one API request (`name` is the path after `/admin/api/`). */
export async function answerApi(options: AdminApiOptions, request: Request, name: string, url: URL): Promise<ApiAnswer> {
  const { gateway, ledger } = options;
  if (options.ready && !options.ready()) return { status: 503, body: { error: 'the gateway is starting or stopping; try again in a moment' } };
  switch (`${request.method} ${name}`) {
    case 'GET conversations':
      return { body: await listConversations(gateway, ledger, { search: url.searchParams.get('q') ?? '', limit: boundedInt(url.searchParams.get('limit'), 200, 1, 5_000) }) };
    case 'GET conversation':
      return { body: await conversationDetail(options, url.searchParams.get('key') ?? '') };
    case 'GET jobs':
      return { body: { jobs: await listJobs(gateway) } };
    case 'GET pairing':
      return { body: await listPairing(gateway) };
    case 'GET profiles':
      return { body: { profiles: await options.profiles.list(gateway) } };
    case 'GET usage':
      return { body: await summarizeUsage(ledger, boundedInt(url.searchParams.get('days'), 30, 1, 366), options.now?.()) };
    case 'GET spending':
      return { body: await spendingView(gateway) };
    case 'GET runs':
      return { body: { runs: await listPipelineRuns(gateway) } };
    case 'GET run':
      return { body: await pipelineRunDetail(gateway, url.searchParams.get('id') ?? '') };
    case 'GET events':
      return options.feed.open(request.signal);
    case 'POST jobs':
    case 'POST pairing':
    case 'POST profiles':
    case 'POST settings':
    case 'POST spending':
      return change(options, request, name);
    default:
      return { status: 404, body: { error: `no such console request: ${request.method} /admin/api/${name}` } };
  }
}

/** A change: its body read with a limit and checked, then applied. */
async function change(options: AdminApiOptions, request: Request, name: string): Promise<ApiAnswer> {
  const text = await readLimitedBody(request, bodyLimits.adminConsole);
  if (text === undefined) return tooLarge(bodyLimits.adminConsole);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { status: 400, body: { error: 'the body must be JSON' } };
  }
  const schema = name === 'jobs' ? jobChange : name === 'pairing' ? pairingChange : name === 'settings' ? settingsChange : name === 'spending' ? spendingChange : profileChange;
  const parsed = schema.safeParse(body);
  if (!parsed.success) return { status: 400, body: { error: `invalid request: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')}` } };
  const { gateway } = options;
  if (name === 'jobs') {
    const { action, id } = parsed.data as z.infer<typeof jobChange>;
    const reply = await changeJob(gateway, action, id);
    return { body: { ok: reply.ok, text: reply.text } };
  }
  if (name === 'pairing') return { body: await changePairing(gateway, parsed.data as z.infer<typeof pairingChange>) };
  if (name === 'settings') return { body: await changeSettings(gateway, parsed.data as z.infer<typeof settingsChange>) };
  if (name === 'spending') return { body: await changeSpending(gateway, parsed.data as z.infer<typeof spendingChange>) };
  const { profile } = parsed.data as z.infer<typeof profileChange>;
  try {
    const { report, text: reportText } = await options.profiles.reload(gateway, profile);
    return { body: { ok: true, text: reportText, report } };
  } catch (error) {
    return { body: { ok: false, text: `Reload failed: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

/** One conversation: its summary (when on record), transcript, prompt parts, own memory, settings and spend today. */
async function conversationDetail(options: AdminApiOptions, key: string): Promise<unknown> {
  const { gateway, ledger } = options;
  if (key === '') return { error: 'which conversation? give its key' };
  const page = await listConversations(gateway, ledger, { search: key, limit: 5_000 });
  const conversation = page.conversations.find((summary) => summary.key === key);
  const [transcript, sessionId] = await Promise.all([readTranscript(gateway.runtime.store, key), currentSessionId(gateway.runtime.store, key)]);
  const profile = conversation?.profile ?? 'default';
  const failed = (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) });
  const prompt = sessionId === undefined ? undefined : await describePrompt(gateway, key, profile, sessionId).catch(failed);
  const memory = await conversationMemory(gateway, key, profile).catch(failed);
  const settings = await conversationSettings(gateway, key).catch(failed);
  const spending = await conversationSpending(gateway, key, profile).catch(failed);
  return { conversation, transcript, prompt, memory, settings, spending };
}

function boundedInt(text: string | null, fallback: number, min: number, max: number): number {
  const value = text === null || !/^\d{1,6}$/.test(text) ? fallback : Number(text);
  return Math.min(max, Math.max(min, value));
}
