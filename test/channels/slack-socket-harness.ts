/**
 * The Slack adapter in Socket Mode on the fake Slack: bolt's WebClient talks HTTP to the fake Web
 * API, and `@slack/socket-mode` connects to the fake's websocket (`apps.connections.open` with
 * the app token), where the fake delivers envelopes and records their acknowledgements. Gives
 * the platform-side powers the contract suite and the Socket Mode tests use.
 */
import { createSlackChannel, type SlackChannelOptions } from '../../src/channels/slack/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../../src/channels/types.ts';
import { startFakeSlackServer, type FakeSlack, type FakeSocketAck, type FakeSocketEnvelope, type SlackRequest } from '../fakes/fake-slack-server.ts';
import type { AdapterHarness } from './adapter-contract.ts';
import { slackConversationSide } from './slack-harness.ts';

/** A Socket Mode Slack adapter on a fake Slack. */
export interface SlackSocketHarness extends AdapterHarness {
  slack: FakeSlack;
  /** Log lines the adapter wrote. */
  logs: string[];
  /** Delivers a request (`slack.envelope(…)`, `blockAction`, `slashCommand`) as an envelope, without waiting. */
  deliver(request: SlackRequest): FakeSocketEnvelope;
  /** Delivers a request and waits for the adapter's acknowledgement. */
  deliverAcked(request: SlackRequest): Promise<FakeSocketAck>;
  /** Waits for the acknowledgement of an envelope. */
  ackOf(envelope: FakeSocketEnvelope): Promise<FakeSocketAck>;
  /** A person's message event in `address`, stored in the fake (not yet sent). */
  messageEvent(address: ConversationAddress, text: string, extra?: { from?: { id?: string; name?: string } }): Record<string, unknown>;
}

/** Options of {@link startSlackSocketHarness}. */
export interface SlackSocketHarnessOptions {
  /** The conversation of the contract suite (default: a DM). `threadId: 'new'` starts a thread. */
  address?: ConversationAddress;
  /** More adapter options (clock, ping timeout, ...). */
  adapter?: Partial<SlackChannelOptions>;
}

/** Starts the fake and creates (without starting) a Socket Mode adapter on it. */
export async function startSlackSocketHarness(options: SlackSocketHarnessOptions = {}): Promise<SlackSocketHarness> {
  const slack = await startFakeSlackServer();
  const logs: string[] = [];
  const adapter: ChannelAdapter = createSlackChannel({
    botToken: slack.bot.token,
    appToken: slack.socket.appToken,
    apiUrl: slack.apiUrl,
    log: (line) => logs.push(line),
    ...options.adapter,
  });
  const side = slackConversationSide(slack, options.address);
  const ackOf = (envelope: FakeSocketEnvelope) => slack.waitFor((fake) => fake.socket.acked(envelope.envelope_id));
  const deliver = (request: SlackRequest) => slack.socket.deliver(request);
  const deliverAcked = (request: SlackRequest) => ackOf(deliver(request));
  return {
    ...side,
    slack,
    logs,
    adapter,
    deliver,
    deliverAcked,
    ackOf,
    async deliverText(target, text) {
      const envelope = deliver(slack.envelope(side.messageEvent(target, text)));
      await ackOf(envelope);
      return { redeliver: async () => void (await ackOf(slack.socket.redeliver(envelope))) };
    },
    async pressButton(target, messageId, data) {
      await deliverAcked(slack.blockAction({ channel: target.conversationId, messageTs: messageId, value: data }));
    },
    async close() {
      await slack.close();
    },
  };
}
