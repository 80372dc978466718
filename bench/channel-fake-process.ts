/**
 * The fake Slack or the fake Discord (`test/fakes/`) in a child process, as the real platform
 * would be: its CPU work stays out of the benchmark's event loop. The child reports each final
 * reply with its arrival time; this side keeps them per conversation (a Slack or Discord channel
 * id). For Discord it also makes the conversations and dispatches the people's messages.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the parent sends the child. */
export type ParentMessage =
  | { type: 'verify'; id: number; conversations: string[] }
  | { type: 'setup'; id: number; count: number }
  | { type: 'dispatch'; id: number; conversations: string[]; text: string };

/** What the child sends the parent. */
export type ChildMessage =
  | { type: 'ready'; apiUrl: string; token: string; secret: string; botUserId: string }
  | { type: 'replies'; items: [string, string][] }
  | { type: 'verified'; id: number; missing: number }
  | { type: 'conversations'; id: number; conversations: string[] }
  | { type: 'dispatched'; id: number; items: [string, string][] };

/** A fake platform running in its own process. */
export interface ChannelFakeProcess {
  /** The API base to give the gateway (`SLACK_API_URL`, `DISCORD_API_URL`). */
  readonly apiUrl: string;
  readonly token: string;
  /** Slack's signing secret (empty for Discord). */
  readonly secret: string;
  readonly botUserId: string;
  readonly pid: number;
  /** Arrival time (`process.hrtime.bigint()`) of each conversation's latest final reply. */
  readonly arrived: ReadonlyMap<string, bigint>;
  reset(): void;
  /** Resolves once every conversation of `conversations` has a reply since the last reset. */
  replies(conversations: readonly string[], timeoutMs: number): Promise<void>;
  /** How many of `conversations` do not show the whole reply as the bot's last message. */
  unanswered(conversations: readonly string[]): Promise<number>;
  /** Discord: makes `count` DM channels, one person each. */
  setup(count: number): Promise<string[]>;
  /** Discord: a person's message in each conversation; resolves with when each was dispatched. */
  dispatch(conversations: readonly string[], text: string): Promise<Map<string, bigint>>;
  close(): Promise<void>;
}

const childEntry = fileURLToPath(new URL('./channel-fake-child.ts', import.meta.url));
const runner = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

/** Starts the child; every bot message whose text is exactly `replyText` counts as a final reply. */
export async function startChannelFakeProcess(platform: 'slack' | 'discord', replyText: string): Promise<ChannelFakeProcess> {
  const child: ChildProcess = fork(runner, [childEntry, platform, replyText], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const arrived = new Map<string, bigint>();
  const waiters = new Set<() => void>();
  const answers = new Map<number, (message: ChildMessage) => void>();
  let nextId = 0;
  const ready = await new Promise<Extract<ChildMessage, { type: 'ready' }>>((resolve, reject) => {
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') return resolve(message);
      if (message.type === 'replies') {
        for (const [conversation, at] of message.items) arrived.set(conversation, BigInt(at));
        for (const waiter of [...waiters]) waiter();
        return;
      }
      answers.get(message.id)?.(message);
      answers.delete(message.id);
    });
    child.once('exit', (code) => reject(new Error(`fake ${platform} process exited with ${code}`)));
  });
  const ask = <T extends ChildMessage>(message: ParentMessage): Promise<T> =>
    new Promise<T>((resolve) => {
      answers.set(message.id, resolve as (message: ChildMessage) => void);
      child.send(message);
    });

  return {
    apiUrl: ready.apiUrl,
    token: ready.token,
    secret: ready.secret,
    botUserId: ready.botUserId,
    pid: child.pid!,
    arrived,
    reset: () => arrived.clear(),
    replies(conversations, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        let index = 0;
        const check = () => {
          while (index < conversations.length && arrived.has(conversations[index]!)) index++;
          if (index < conversations.length) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const missing = conversations.filter((conversation) => !arrived.has(conversation)).length;
          reject(new Error(`fake ${platform}: ${missing} of ${conversations.length} conversations had no reply within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async unanswered(conversations) {
      const answer = await ask<Extract<ChildMessage, { type: 'verified' }>>({ type: 'verify', id: nextId++, conversations: [...conversations] });
      return answer.missing;
    },
    async setup(count) {
      const answer = await ask<Extract<ChildMessage, { type: 'conversations' }>>({ type: 'setup', id: nextId++, count });
      return answer.conversations;
    },
    async dispatch(conversations, text) {
      const answer = await ask<Extract<ChildMessage, { type: 'dispatched' }>>({ type: 'dispatch', id: nextId++, conversations: [...conversations], text });
      return new Map(answer.items.map(([conversation, at]) => [conversation, BigInt(at)]));
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}
