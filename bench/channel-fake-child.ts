/**
 * The child side of `channel-fake-process.ts`: the fake Slack or the fake Discord in its own
 * process (`node bin/run-ts.js bench/channel-fake-child.ts <slack|discord> <reply text>`), so
 * serving the gateway's calls stays out of the benchmark's event loop. Each bot message whose text
 * is the whole reply is reported over IPC with the moment it arrived (`process.hrtime.bigint()`,
 * CLOCK_MONOTONIC, the same clock in every process of the machine), batched per turn of the event
 * loop. For Discord, whose messages arrive over the gateway websocket, the child also makes the
 * people's messages (one DM channel per conversation) and reports when it dispatched each.
 */
import type { APIUser } from 'discord.js';
import { startFakeDiscordServer } from '../test/fakes/fake-discord-server.ts';
import { startFakeSlackServer } from '../test/fakes/fake-slack-server.ts';
import type { ChildMessage, ParentMessage } from './channel-fake-process.ts';
import { replyBatcher } from './reply-batch.ts';

const platform = process.argv[2];
const replyText = process.argv[3] ?? 'ok';
const send = (message: ChildMessage) => process.send!(message);

/** One fake as the child drives it. */
interface Fake {
  ready: Extract<ChildMessage, { type: 'ready' }>;
  /** The conversation and text of each bot message call, from `cursor` on. */
  newReplies(): string[];
  /** Whether the bot's last message in `conversation` is the whole reply. */
  answered(conversation: string): boolean;
  /** Makes `count` conversations (Discord DM channels); Slack needs none made. */
  setup(count: number): string[];
  /** Dispatches a person's message in each conversation (Discord), returning when each left. */
  dispatch(conversations: string[], text: string): [string, string][];
  waitFor(predicate: () => boolean): void;
  close(): Promise<void>;
}

async function slackFake(): Promise<Fake> {
  const slack = await startFakeSlackServer();
  let cursor = 0;
  return {
    ready: { type: 'ready', apiUrl: slack.apiUrl, token: slack.bot.token, secret: slack.signingSecret, botUserId: slack.bot.userId },
    newReplies() {
      const found: string[] = [];
      for (; cursor < slack.calls.length; cursor++) {
        const call = slack.calls[cursor]!;
        if ((call.method === 'chat.postMessage' || call.method === 'chat.update') && call.params.text === replyText) found.push(String(call.params.channel));
      }
      return found;
    },
    answered: (conversation) => slack.botMessages(conversation).at(-1)?.text === replyText,
    setup: () => [],
    dispatch: () => {
      throw new Error('Slack messages are posted by the benchmark itself');
    },
    waitFor: (predicate) => void slack.waitFor(() => predicate(), 2 ** 31 - 1),
    close: () => slack.close(),
  };
}

async function discordFake(): Promise<Fake> {
  const discord = await startFakeDiscordServer();
  const people = new Map<string, APIUser>();
  let cursor = 0;
  return {
    ready: { type: 'ready', apiUrl: discord.apiUrl, token: discord.token, secret: '', botUserId: discord.bot.id },
    newReplies() {
      const found: string[] = [];
      for (; cursor < discord.calls.length; cursor++) {
        const call = discord.calls[cursor]!;
        const content = (call.body as { content?: string } | undefined)?.content;
        if ((call.route === 'createMessage' || call.route === 'editMessage') && content === replyText) found.push(call.path.split('/')[2]!);
      }
      return found;
    },
    answered: (conversation) => discord.botMessages(conversation).at(-1)?.message.content === replyText,
    setup(count) {
      return Array.from({ length: count }, (_, index) => {
        const { channelId, user } = discord.addDmChannel(`Person ${index}`);
        people.set(channelId, user);
        return channelId;
      });
    },
    dispatch(conversations, text) {
      return conversations.map((channelId) => {
        discord.messageCreate({ channelId, content: text, author: people.get(channelId)! });
        return [channelId, process.hrtime.bigint().toString()];
      });
    },
    waitFor: (predicate) => void discord.waitFor(() => predicate(), 2 ** 31 - 1),
    close: () => discord.close(),
  };
}

const fake = platform === 'discord' ? await discordFake() : await slackFake();

const report = replyBatcher<string>(send);
// A predicate that is never satisfied: it runs on every change the fake records, right after the
// call arrived, and reads only the calls it has not seen yet.
fake.waitFor(() => {
  report(fake.newReplies());
  return false;
});

process.on('message', (message: ParentMessage) => {
  switch (message.type) {
    case 'verify': {
      const missing = message.conversations.filter((conversation) => !fake.answered(conversation));
      send({ type: 'verified', id: message.id, missing: missing.length });
      break;
    }
    case 'setup':
      send({ type: 'conversations', id: message.id, conversations: fake.setup(message.count) });
      break;
    case 'dispatch':
      send({ type: 'dispatched', id: message.id, items: fake.dispatch(message.conversations, message.text) });
      break;
  }
});
process.on('disconnect', () => {
  void fake.close().finally(() => process.exit(0));
});
send(fake.ready);
