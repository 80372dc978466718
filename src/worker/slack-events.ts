/**
 * Slack's Events API on Workers (`POST /webhooks/slack`): the body read with the Node gateway's
 * limit, its signature checked before anything is taken from it, `url_verification` answered with
 * its challenge, and a message the Node channel would answer mapped by that channel's own
 * `toInboundMessage` and put on record in its conversation's Durable Object before the answer,
 * 200. When the object cannot take it, 503: Slack delivers the event again (`X-Slack-Retry-Num`),
 * and the object keeps a redelivery once, by the message's key. A channel's top-level message is
 * answered in a thread under it, or not, as `SLACK_REPLY_IN_THREAD` says (`slack.replyInThread`,
 * `always` by default, as on Node). An edit (`message_changed`) is taken with
 * `OPERATOR_EDITED_MESSAGES=reanswer`, by the Node channel's own `toEditedMessage`: its object puts
 * the new wording in the place of the message while that still waits. Events that are not messages
 * to answer (the bot's own, other edits, deletions, other event types) are acknowledged with 200. The
 * bot's own `member_joined_channel` goes to the access object (see `group-joins.ts`); its leaving
 * pauses the channel's jobs (see `membership.ts`).
 *
 * A slash command (`/operator status`, a form body at the same path, as on Node) is mapped by the
 * channel's own `slashCommandToMessage` and taken the same way; its answer comes as a message in
 * the conversation. Slack never delivers a slash command again, so one that cannot be taken is
 * answered with a note only its sender sees, as on Node. Button presses (interactivity) are
 * acknowledged: the Worker sends no buttons.
 */
import { fileRefsOf as slackFileRefs } from '../channels/slack/attachments.ts';
import { messageFilesOf } from '../channels/slack/shared-messages.ts';
import { toEditedMessage, type SlackChangedEvent } from '../channels/slack/edited-message.ts';
import { slashCommandBusyNotice, slashCommandToMessage, toInboundMessage, type InboundContext, type SlackIdentity, type SlackMessageEvent, type SlackSlashCommand } from '../channels/slack/inbound.ts';
import type { InboundMessage } from '../channels/types.ts';
import { parseSlackBody } from '../channels/slack/request-body.ts';
import { bodyLimits } from '../core/body-limits.ts';
import { readLimitedBytes, tooLarge } from '../core/read-limited-body.ts';
import { toGroupJoin, type SlackJoinEvent } from '../channels/slack/group-join.ts';
import { conversationOf } from '../channels/slack/conversation.ts';
import { slackLeaveEvents, toMembershipChange, type SlackLeaveEvent } from '../channels/slack/membership.ts';
import { workerGroupJoin } from './group-joins.ts';
import { workerMembership } from './membership.ts';
import { slackIdentity } from './slack-identity.ts';
import { createSlackUserNames, type SlackUserInfo, type SlackUserNames } from '../channels/slack/user-names.ts';
import { slackSignatureRefusal } from './slack-signature.ts';
import { createSlackApi, slackErrorOf } from './slack-web-api.ts';
import { toWireMessage } from './wire-message.ts';
import { workerConfig } from './worker-config.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Interactivity payloads: button presses and the like. */
const interactivity = new Set(['block_actions', 'interactive_message', 'view_submission', 'view_closed', 'shortcut', 'message_action']);

/** Event types that can carry a message to answer (Slack sends both for a mention). */
const messageEvents = new Set(['message', 'app_mention']);

/** Answers one POST from Slack. */
export async function slackEvents(request: Request, env: WorkerEnv): Promise<Response> {
  const secret = env.SLACK_SIGNING_SECRET;
  if (!secret) return new Response('the Slack endpoint is not configured (SLACK_SIGNING_SECRET)', { status: 503 });
  // Read with a limit before the signature is checked: an unsigned stranger's huge body is not held.
  const bytes = await readLimitedBytes(request, bodyLimits.slackWebhook);
  if (bytes === undefined) return tooLarge(bodyLimits.slackWebhook);
  const refusal = slackSignatureRefusal(bytes, request.headers, secret, Date.now());
  if (refusal) {
    console.error(`slack: request refused: ${refusal}`);
    return new Response('invalid signature', { status: 401 });
  }
  const body = parseSlackBody(new TextDecoder().decode(bytes), request.headers.get('content-type') ?? '');
  if (!body) return new Response('bad request: not JSON', { status: 400 });
  if (body.type === 'url_verification') return Response.json({ challenge: body.challenge });
  if (typeof body.command === 'string') return slashCommand(body as unknown as SlackSlashCommand, env);
  // A button press: the Worker sends no buttons (no approvals or gates there), so there is nothing to do.
  if (typeof body.type === 'string' && interactivity.has(body.type)) return new Response('');
  if (body.type !== 'event_callback') return new Response('bad request: not an Events API callback, a slash command or a button press', { status: 400 });
  const event = body.event as SlackMessageEvent | undefined;
  if (typeof event !== 'object' || event === null) return new Response('bad request: an event callback without an event', { status: 400 });
  if (event.type === 'member_joined_channel') return joined(event as SlackJoinEvent, env);
  if ((slackLeaveEvents as readonly string[]).includes(event.type)) return left(event as SlackLeaveEvent, env);
  if (!messageEvents.has(event.type)) return new Response('ok');

  const bot = await botOf(env);
  if (bot instanceof Response) return bot;
  const { config } = workerConfig(env);
  const context: InboundContext = {
    bot,
    // Files are fetched by their turn (by the private URLs kept with the message), not while Slack waits.
    download: () => Promise.reject(new Error('a file is read by its turn on Workers')),
    now: Date.now,
    // As on Node: a channel's top-level message is answered in a thread under it, unless set otherwise.
    replyInThread: config.slack.replyInThread ?? 'always',
  };
  // An edit only where edits are answered (`OPERATOR_EDITED_MESSAGES=reanswer`), as the Node channel asks.
  const message = toInboundMessage(event, context) ?? (config.editedMessages === 'reanswer' ? toEditedMessage(event as SlackChangedEvent, context) : undefined);
  if (!message) return new Response('ok');
  // A channel's messages are labelled with their senders' names (see `channels/slack/user-names.ts`).
  const named = message.scope === 'group' ? { ...message, sender: await namesOf(env).fill(message.sender) } : message;
  // An edit keeps the files of the message it rewords: it brings no references of its own.
  const refs = message.edited ? [] : slackFileRefs(messageFilesOf(event));
  return (await taken(env, named, refs)) ? new Response('ok') : new Response('not taken now, deliver again', { status: 503 });
}

/** The names of Slack people this isolate looked up, for its bot token. */
let names: { token: string; names: SlackUserNames } | undefined;

function namesOf(env: WorkerEnv): SlackUserNames {
  const token = env.SLACK_BOT_TOKEN ?? '';
  if (names?.token !== token) {
    const slack = createSlackApi({ token, apiUrl: env.SLACK_API_URL });
    const lookup = async (user: string): Promise<SlackUserInfo | undefined> => {
      try {
        return (await slack('users.info', { user })).user as SlackUserInfo | undefined;
      } catch (error) {
        // The shape `user-names.ts` reads a Web API error code from.
        throw Object.assign(new Error('users.info failed'), { data: { error: slackErrorOf(error) } });
      }
    };
    names = { token, names: createSlackUserNames({ lookup, log: (line) => console.warn(line) }) };
  }
  return names.names;
}

/** Someone left a channel: when it is the bot, the channel's jobs pause (see `membership.ts`). */
async function left(event: SlackLeaveEvent, env: WorkerEnv): Promise<Response> {
  const bot = await botOf(env);
  if (bot instanceof Response) return bot;
  const change = toMembershipChange(event, bot);
  return change ? workerMembership(env, change, change.conversationIds.map((channel) => conversationOf({ channel, userId: '' }).sessionKey)) : new Response('ok');
}

/** Someone joined a channel: when it is the bot, the access object approves the channel or gives it a code. */
async function joined(event: SlackJoinEvent, env: WorkerEnv): Promise<Response> {
  const bot = await botOf(env);
  if (bot instanceof Response) return bot;
  const join = toGroupJoin(event, bot);
  return join ? workerGroupJoin(env, join) : new Response('ok');
}

/** Takes a slash command like a message; Slack shows what the answer body says to its sender alone. */
async function slashCommand(command: SlackSlashCommand, env: WorkerEnv): Promise<Response> {
  const bot = await botOf(env);
  if (bot instanceof Response) return Response.json({ response_type: 'ephemeral', text: slashCommandBusyNotice });
  const message = slashCommandToMessage(command, { bot, download: () => Promise.reject(new Error('a slash command brings no files')), now: Date.now });
  // An empty 200: the command's answer comes as a message in the conversation.
  return (await taken(env, message)) ? new Response('') : Response.json({ response_type: 'ephemeral', text: slashCommandBusyNotice });
}

/** The bot's identity (asked of Slack once per isolate), or the answer to give when it is not known. */
async function botOf(env: WorkerEnv): Promise<SlackIdentity | Response> {
  const token = env.SLACK_BOT_TOKEN;
  if (!token) return new Response('the Slack endpoint is not configured (SLACK_BOT_TOKEN)', { status: 503 });
  try {
    return await slackIdentity(token, createSlackApi({ token, apiUrl: env.SLACK_API_URL }));
  } catch (error) {
    console.error(`slack: the bot's identity is not known (${error instanceof Error ? error.message : String(error)}); Slack will deliver again`);
    return new Response('not taken now, deliver again', { status: 503 });
  }
}

/** Whether `message` is on record in its conversation's object (a redelivery counts: it was). */
async function taken(env: WorkerEnv, message: InboundMessage, refs?: readonly (string | undefined)[]): Promise<boolean> {
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(message.sessionKey));
  try {
    await stub.accept(toWireMessage(message, undefined, refs));
    return true;
  } catch {
    return false;
  }
}
