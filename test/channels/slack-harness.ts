/**
 * The Slack adapter wired to the fake Slack: bolt talks HTTP to the fake Web API, and the
 * adapter's route is served over HTTP, where the fake posts signed events, button presses and
 * slash commands. Gives the platform-side powers the contract suite and the Slack tests use.
 */
import { createSlackChannel, type SlackChannelOptions } from '../../src/channels/slack/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../../src/channels/types.ts';
import { startFakeSlackServer, type FakeSlack, type FakeSlackMessage, type SendOptions, type SendResult, type SlackRequest } from '../fakes/fake-slack-server.ts';
import type { AdapterHarness, SentRecord } from './adapter-contract.ts';
import { serveRoutes, type RouteServer } from './serve-routes.ts';

/** A Slack adapter on a fake Slack. */
export interface SlackHarness extends AdapterHarness {
  slack: FakeSlack;
  /** Log lines the adapter wrote. */
  logs: string[];
  routes: RouteServer;
  /** The adapter's request URL (`<origin>/webhooks/slack`). */
  url: string;
  /** Signs and sends a request to the adapter's route as Slack would. */
  post(request: SlackRequest, options?: Omit<SendOptions, 'signingSecret'>): Promise<SendResult>;
  /** A person's message event in `address`, stored in the fake (not yet sent). */
  messageEvent(address: ConversationAddress, text: string, extra?: { from?: { id?: string; name?: string } }): Record<string, unknown>;
}

/** Options of {@link startSlackHarness}. */
export interface SlackHarnessOptions {
  /** The conversation of the contract suite (default: a DM). `threadId: 'new'` starts a thread. */
  address?: ConversationAddress;
  /** More adapter options (retry policy, clock, ...). */
  adapter?: Partial<SlackChannelOptions>;
}

/** Reads a fake's message as the contract suite sees it. */
export function sentRecordOf(slack: FakeSlack, message: FakeSlackMessage): SentRecord {
  const shown = slack.display(message);
  return {
    id: message.ts,
    text: shown.text,
    length: shown.mrkdwn.length,
    codeBlocks: shown.codeBlocks,
    ...(shown.buttons ? { buttons: shown.buttons.map((row) => row.map((button) => ({ label: button.label, data: button.value }))) } : {}),
  };
}

/** What both Slack harnesses (HTTP and Socket Mode) read and make the same way in one conversation. */
export interface SlackConversationSide {
  /** The conversation (a requested `threadId: 'new'` replaced by a thread just started). */
  address: ConversationAddress;
  messageEvent: SlackHarness['messageEvent'];
  sent: AdapterHarness['sent'];
  sentFiles: NonNullable<AdapterHarness['sentFiles']>;
  actionAnswered: AdapterHarness['actionAnswered'];
}

/** The fake's side of the conversation `requested` (default: a DM). */
export function slackConversationSide(slack: FakeSlack, requested: ConversationAddress | undefined): SlackConversationSide {
  let address = requested ?? { platform: 'slack', conversationId: 'D0DIRECT1' };
  if (address.threadId === 'new') {
    const parent = slack.personMessage({ channel: address.conversationId, text: 'Starting a thread' });
    address = { ...address, threadId: String(parent.ts) };
  }
  return {
    address,
    messageEvent: (target, text, extra = {}) =>
      slack.personMessage({ channel: target.conversationId, text, ...(target.threadId !== undefined ? { threadTs: target.threadId } : {}), ...extra }),
    sent: async (target) => slack.botMessages(target.conversationId, target.threadId ?? null).map((message) => sentRecordOf(slack, message)),
    sentFiles: async (target) => slack.sharedFiles(target.conversationId, target.threadId ?? null).map((file) => ({ name: file.name, bytes: file.bytes })),
    actionAnswered: async (action) => slack.ephemerals.some((notice) => notice.user === action.sender.id && notice.channel === action.address.conversationId),
  };
}

/** Starts the fake and the route server, and creates (without starting) the adapter. */
export async function startSlackHarness(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  const slack = await startFakeSlackServer();
  const logs: string[] = [];
  // The route server needs the adapter first; it asks for the routes only per request.
  const routes = await serveRoutes(() => adapter.routes?.() ?? []);
  const adapter: ChannelAdapter = createSlackChannel({
    botToken: slack.bot.token,
    signingSecret: slack.signingSecret,
    apiUrl: slack.apiUrl,
    log: (line) => logs.push(line),
    // These tests speak of a channel's top-level conversation; threads started under each message
    // (the default, `always`) have their own tests (slack-reply-in-thread.test.ts).
    replyInThread: 'never',
    ...options.adapter,
  });
  const side = slackConversationSide(slack, options.address);
  const url = `${routes.origin}/webhooks/slack`;
  const post = (request: SlackRequest, sendOptions: Omit<SendOptions, 'signingSecret'> = {}) => slack.send(url, request, sendOptions);
  const delivered = async (request: SlackRequest, sendOptions?: Omit<SendOptions, 'signingSecret'>) => {
    const result = await post(request, sendOptions);
    if (result.status !== 200) throw new Error(`Slack request answered ${result.status}: ${result.body}`);
  };
  return {
    ...side,
    slack,
    logs,
    routes,
    url,
    adapter,
    post,
    async deliverText(target, text) {
      const request = slack.envelope(side.messageEvent(target, text));
      await delivered(request);
      return { redeliver: () => delivered(request, { retryNum: 1, retryReason: 'http_timeout' }) };
    },
    async pressButton(target, messageId, data) {
      await delivered(slack.blockAction({ channel: target.conversationId, messageTs: messageId, value: data }));
    },
    async close() {
      await routes.close();
      await slack.close();
    },
  };
}
