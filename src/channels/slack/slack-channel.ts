/**
 * The Slack channel: a bolt `App` behind the neutral {@link ChannelAdapter} contract. bolt runs
 * no server of its own: with a signing secret the gateway mounts {@link ChannelAdapter.routes}
 * (Events API, interactivity and slash commands at one path, signature-verified) and the route
 * hands each request to bolt's `processEvent`; without one, the app token opens a Socket Mode
 * connection (`socket-mode.ts`) whose envelopes go to `processEvent` alike. `auth.test` runs
 * once at start; its bot ids are given to bolt, which then never calls it per event. Sending goes through one WebClient built with no
 * retries of its own: rate limits are waited out by `call-slack.ts`, everything else becomes a
 * {@link DeliveryError} for the gateway's delivery ledger.
 */
import { App, webApi } from '@slack/bolt';
import { DeliveryError, NotAcceptedError, type ChannelAdapter, type ChannelCapabilities, type ChannelHandlers, type ChannelMemory } from '../types.ts';
import { createFileDownloader } from './attachments.ts';
import { staleButtonNotice } from '../stale-press.ts';
import { actionIdPrefix } from './blocks.ts';
import { slackLeaveEvents, toMembershipChange, type SlackLeaveEvent } from './membership.ts';
import { createBoltLogger } from './bolt-logger.ts';
import { createCallSlack, type RetryPolicy } from './call-slack.ts';
import { slackMaxLength } from './format/max-length.ts';
import { createBotTurns, defaultBotTurns } from '../bot-turns.ts';
import { createSlackUserNames } from './user-names.ts';
import { toEditedMessage } from './edited-message.ts';
import { slashCommandBusyNotice, slashCommandToMessage, toChannelAction, toInboundMessage, type InboundContext, type SlackBlockActions, type SlackIdentity, type SlackMessageEvent, type SlackSlashCommand } from './inbound.ts';
import { toGroupJoin, type SlackJoinEvent } from './group-join.ts';
import type { SlackReplyInThread } from './conversation.ts';
import { findSlackPreview, findSlackStream } from './find-preview.ts';
import { createStreamNotes } from './stream-notes.ts';
import { createSlackOutbound } from './outbound.ts';
import { createSlackAssistant, type SlackAssistantThreadEvent } from './assistant.ts';
import { createSlackStreams } from './stream.ts';
import { createScrub } from './slack-errors.ts';
import { createSocketMode } from './socket-mode.ts';
import { createTypingIndicator } from './typing-indicator.ts';
import { createWebhookRoute, defaultWebhookPath } from './webhook.ts';
import { createLinkStatus } from '../link-status.ts';
import { createOutsideErrors } from '../outside-errors.ts';
import { reportingRateLimits } from '../rate-limit-retry.ts';

/** Options of {@link createSlackChannel}. */
export interface SlackChannelOptions {
  /** The bot token (`xoxb-…`). Never logged. */
  botToken: string;
  /** The app's signing secret: receive events over HTTP at `path` (wins over `appToken`). Never logged. */
  signingSecret?: string;
  /** An app-level token (`xapp-…`): without a `signingSecret`, receive events over Socket Mode. Never logged. */
  appToken?: string;
  /** Socket Mode: how long a pong may take before the socket is reopened, in ms (default 5,000; also the first reconnect delay). */
  socketPingTimeoutMs?: number;
  /** The Web API base (default `https://slack.com/api/`), e.g. `http://127.0.0.1:PORT/api/`. */
  apiUrl?: string;
  /** The route's path on the gateway's server (default `/webhooks/slack`). */
  path?: string;
  /** Where problems are reported (default stderr). Lines never contain a token or the secret. */
  log?: (line: string) => void;
  /** The clock for `receivedAt` and the signature's timestamp check (default `Date.now`). */
  now?: () => number;
  /** Rate-limit retries (default: 3 attempts, waits up to 30 s honoured in place). */
  retry?: Partial<RetryPolicy>;
  /** The reaction shown on the person's message while a turn works (default `hourglass_flowing_sand`). */
  workingReaction?: string;
  /** How long one Web API call may take, in ms (default 30,000). */
  requestTimeoutMs?: number;
  /** Hand over messages of other apps and bots (`bot_id`, `bot_message`) too (default false: people only; Slackbot never). */
  allowBots?: boolean;
  /** With `allowBots`: how many bots' messages in a row one conversation takes before a person writes again (default 5). */
  botTurns?: number;
  /** Where top-level channel messages are answered (default `always`: in a thread under the message; see `conversation.ts`). */
  replyInThread?: SlackReplyInThread;
  /** Hand over messages their senders edit, marked `edited` (default false). */
  editedMessages?: boolean;
  /** Where the adapter keeps what a restart should still know (the streams it began; see `stream-notes.ts`); unset: nothing is kept. */
  memory?: ChannelMemory;
}

const capabilities: ChannelCapabilities = {
  edit: true,
  typing: true,
  buttons: true,
  threads: true,
  maxLength: slackMaxLength,
  // chat.update is a Tier 3 method (about 50 calls a minute per workspace): one edit a second
  // per streamed message leaves room for a few conversations at once.
  editIntervalMs: 1_200,
  commandMenu: false,
  maxFileBytes: 1024 * 1024 * 1024,
};


/**
 * Creates the Slack adapter.
 *
 * @example
 * const slack = createSlackChannel({ botToken: process.env.SLACK_BOT_TOKEN!, signingSecret: process.env.SLACK_SIGNING_SECRET! });
 * await slack.start({ onMessage, onAction });
 * for (const route of slack.routes!()) server.on(route.method, route.path, (c) => route.handler(c.req.raw));
 * // Socket Mode: no signing secret, an app-level token; no routes.
 * const socket = createSlackChannel({ botToken: process.env.SLACK_BOT_TOKEN!, appToken: process.env.SLACK_APP_TOKEN! });
 */
export function createSlackChannel(options: SlackChannelOptions): ChannelAdapter {
  const { signingSecret, appToken } = options;
  if (!signingSecret && !appToken) throw new Error('slack: a signingSecret (HTTP events) or an appToken (Socket Mode) is required');
  const scrub = createScrub([options.botToken, signingSecret, appToken]);
  const log = options.log ?? ((line: string) => console.error(line));
  const now = options.now ?? Date.now;
  const slackApiUrl = (options.apiUrl ?? 'https://slack.com/api/').replace(/\/*$/, '/');
  const logger = createBoltLogger(log, scrub);
  const clientOptions: webApi.WebClientOptions = {
    slackApiUrl,
    logger,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.requestTimeoutMs ?? 30_000,
  };
  const client = new webApi.WebClient(options.botToken, { ...clientOptions });
  let handlers: ChannelHandlers | undefined;
  // Over HTTP events there is no connection of ours to lose: only rate limits are reported.
  const link = createLinkStatus({ status: () => handlers?.status, scrub, log, platform: 'slack' });
  const outside = createOutsideErrors({ status: () => handlers?.status, scrub, log, platform: 'slack' });
  const call = createCallSlack(reportingRateLimits(options.retry, (waitMs) => link.rateLimited(waitMs)), scrub);
  const indicator = createTypingIndicator();
  const names = createSlackUserNames({ lookup: async (user) => (await client.users.info({ user })).user, log: (line) => log(scrub(line)), now });
  let identity: SlackIdentity | undefined;
  const streams = createSlackStreams({
    client,
    call,
    teamId: () => identity?.teamId ?? '',
    notes: createStreamNotes(options.memory, (line) => log(scrub(line)), now),
    findStream: async (address, since) => (identity ? findSlackStream(client, call, identity, address, since) : undefined),
    log,
  });
  const assistant = createSlackAssistant({ client, call, log: (line) => log(scrub(line)) });
  const outbound = createSlackOutbound({ client, call, indicator, streams, assistant, workingReaction: options.workingReaction ?? 'hourglass_flowing_sand', maxFileBytes: capabilities.maxFileBytes, log });
  let app: App | undefined;
  // A signing secret means HTTP events even when an app token is given too.
  const socketMode = !signingSecret && appToken
    ? createSocketMode({ appToken, slackApiUrl, timeoutMs: clientOptions.timeout ?? 30_000, pingTimeoutMs: options.socketPingTimeoutMs, app: () => app, log, scrub, link, outside })
    : undefined;

  const context: InboundContext = {
    get bot() {
      if (!identity) throw new Error('slack: not started');
      return identity;
    },
    download: createFileDownloader({ botToken: options.botToken, trustedOrigins: ['https://files.slack.com', new URL(slackApiUrl).origin] }),
    now,
    allowBots: options.allowBots ?? false,
    replyInThread: options.replyInThread ?? 'always',
    ...(options.allowBots ? { botTurns: createBotTurns(options.botTurns ?? defaultBotTurns) } : {}),
  };

  function createApp(bot: SlackIdentity, handlers: ChannelHandlers): App {
    const created = new App({
      token: options.botToken,
      botId: bot.botId,
      botUserId: bot.userId,
      tokenVerificationEnabled: false,
      receiver: { init: () => {}, start: async () => {}, stop: async () => {} },
      clientOptions: { ...clientOptions },
      logger,
      convoStore: false,
    });
    // Errors go up to the route, which tells a refusal (503) from a failure (logged, 200).
    created.error(async (error) => {
      throw error;
    });

    // A message is handed over and waited for until the gateway has it on record; only then
    // does the route answer. A refusal goes up, so Slack delivers the event again.
    const handOver = async (event: SlackMessageEvent) => {
      const made = toInboundMessage(event, context) ?? (options.editedMessages ? toEditedMessage(event, context) : undefined);
      if (!made) return;
      // A channel's messages are labelled with their senders' names (see `user-names.ts`).
      const message = made.scope === 'group' ? { ...made, sender: await names.fill(made.sender) } : made;
      indicator.remember(message.address, message.id);
      streams.remember(message.address, message.sender.id);
      try {
        await handlers.onMessage(message);
      } catch (error) {
        if (error instanceof NotAcceptedError) throw error;
        log(scrub(`slack: handler failed for message ${message.dedupeKey}: ${describeError(error)}`));
      }
      // After the hand-over (the message is on record), so a slow title never delays it.
      await assistant.titleFrom(message);
    };
    // The bot joining a channel (and who invited it): see `group-join.ts`.
    const joined = async (event: SlackJoinEvent) => {
      const join = toGroupJoin(event, bot);
      if (!join) return;
      try {
        await handlers.onGroupJoin?.(join);
      } catch (error) {
        if (error instanceof NotAcceptedError) throw error;
        log(scrub(`slack: handler failed for ${join.dedupeKey}: ${describeError(error)}`));
      }
    };
    // The bot removed from a channel (see `membership.ts`): its scheduled jobs there stop.
    const left = async (event: SlackLeaveEvent) => {
      const change = toMembershipChange(event, bot);
      if (!change) return;
      try {
        await handlers.onMembership?.(change);
      } catch (error) {
        if (error instanceof NotAcceptedError) throw error;
        log(scrub(`slack: handler failed for ${change.dedupeKey}: ${describeError(error)}`));
      }
    };
    for (const type of slackLeaveEvents) created.event(type, async ({ event }) => left(event as SlackLeaveEvent));
    created.event('message', async ({ event }) => handOver(event as unknown as SlackMessageEvent));
    created.event('member_joined_channel', async ({ event }) => joined(event as SlackJoinEvent));
    // A person opened the assistant pane: the profile's prompts (see `assistant.ts`).
    created.event('assistant_thread_started', async ({ event }) => assistant.threadStarted(event as unknown as SlackAssistantThreadEvent, handlers.suggestedPrompts?.bind(handlers)));
    created.event('app_mention', async ({ event }) => handOver(event as unknown as SlackMessageEvent));

    // Every press is acknowledged at once (Slack shows an error after 3 s); one on a button the
    // gateway did not make (an old message's) gets a short notice only the presser sees.
    created.action({ type: 'block_actions' }, async ({ ack, body }) => {
      await ack();
      const payload = body as unknown as SlackBlockActions;
      const action = toChannelAction(payload);
      if (!action) return;
      if (!(payload.actions[0]?.action_id ?? '').startsWith(actionIdPrefix)) {
        void outbound.answerAction(action, staleButtonNotice).catch((error: unknown) => log(scrub(`slack: press ${action.dedupeKey} not answered: ${describeError(error)}`)));
        return;
      }
      void handlers.onAction(action).catch((error: unknown) => log(scrub(`slack: handler failed for action ${action.dedupeKey}: ${describeError(error)}`)));
    });

    // Slack never redelivers a slash command: a refusal is told to the person instead.
    created.command(/.*/, async ({ ack, command }) => {
      const message = slashCommandToMessage(command as unknown as SlackSlashCommand, context);
      try {
        await handlers.onMessage(message);
      } catch (error) {
        if (error instanceof NotAcceptedError) return ack({ response_type: 'ephemeral', text: slashCommandBusyNotice });
        log(scrub(`slack: handler failed for ${command.command} ${message.dedupeKey}: ${describeError(error)}`));
      }
      await ack();
    });
    return created;
  }

  return {
    platform: 'slack',
    capabilities,

    async start(startHandlers) {
      if (app) throw new Error('slack: already started');
      handlers = startHandlers;
      const auth = await call('auth.test', () => client.auth.test());
      if (!auth.user_id || !auth.team_id) throw new DeliveryError('Slack auth.test answered without user_id/team_id (is this a bot token?)', { retryable: false });
      identity = { userId: auth.user_id, botId: auth.bot_id ?? '', teamId: auth.team_id };
      app = createApp(identity, startHandlers);
      try {
        await socketMode?.start();
      } catch (error) {
        app = undefined;
        throw error;
      }
      link.started();
    },

    async stop() {
      app = undefined;
      link.stopped();
      await socketMode?.stop();
    },

    send: (address, message) => outbound.send(address, message),
    async findPreview(address, options) {
      if (!identity) return undefined;
      // A posted preview ends with the marker; a stream has none, and is found by its note.
      return (await findSlackPreview(client, call, identity, address, options)) ?? (await streams.recover(address, options.since));
    },
    edit: (address, messageId, message) => outbound.edit(address, messageId, message),
    typing: (address) => outbound.typing(address),
    stopTyping: (address) => outbound.stopTyping(address),
    answerAction: (action, text) => outbound.answerAction(action, text),

    routes() {
      if (!signingSecret) return [];
      return [createWebhookRoute({ path: options.path ?? defaultWebhookPath, signingSecret, now, app: () => app, log, scrub, outside })];
    },
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
