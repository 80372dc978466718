/**
 * The parent side of `lean-telegram-child.ts`: one child process holding a fake Telegram server
 * per bot process, and what each server saw, kept here with the child's monotonic timestamps
 * (`process.hrtime.bigint()`, comparable with this process's own).
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LeanChildMessage, LeanEvent, LeanParentMessage } from './lean-telegram-child.ts';

/** One fake Bot API server, for one bot process. */
export interface LeanTelegramServer {
  readonly apiRoot: string;
  readonly token: string;
  /** When each chat's latest reply arrived (cleared for a chat when a message is pushed to it). */
  readonly replies: ReadonlyMap<number, bigint>;
  /** When each getUpdates call arrived, in order. */
  readonly polls: readonly bigint[];
  /** When each getUpdates answer was handed to its connection, and its status, in order. */
  readonly answers: readonly { at: bigint; status: number }[];
  /** Queues one private text message per chat, all at once; resolves with the moment they were queued. */
  push(chats: readonly number[], text: string): Promise<bigint>;
  /** Resolves once every chat of `chats` has a reply since its last push. */
  replied(chats: readonly number[], timeoutMs: number): Promise<void>;
  /** Resolves once `condition` holds, checked now and after every batch of events. */
  until(condition: () => boolean, timeoutMs: number, what: string): Promise<void>;
  close(): Promise<void>;
}

/** The child holding the servers. */
export interface LeanTelegram {
  readonly pid: number;
  /** A new server with an empty queue. */
  open(): Promise<LeanTelegramServer>;
  close(): Promise<void>;
}

const childEntry = fileURLToPath(new URL('./lean-telegram-child.ts', import.meta.url));
const runner = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

/** A parent message before its id is given (distributed over the union). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

interface ServerState {
  replies: Map<number, bigint>;
  polls: bigint[];
  answers: { at: bigint; status: number }[];
  waiters: Set<() => void>;
}

/** Starts the child; a bot message whose text is exactly `replyText` counts as a reply. */
export async function startLeanTelegram(replyText: string): Promise<LeanTelegram> {
  const child: ChildProcess = fork(runner, [childEntry, replyText], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, (message: LeanChildMessage) => void>();
  const states = new Map<number, ServerState>();
  let nextId = 0;

  const apply = (event: LeanEvent) => {
    const state = states.get(event.server);
    if (!state) return;
    const at = BigInt(event.at);
    if (event.kind === 'reply') state.replies.set(event.chat, at);
    else if (event.kind === 'poll') state.polls.push(at);
    else state.answers.push({ at, status: event.status });
  };
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message: LeanChildMessage) => {
      if (message.type === 'ready') return resolve();
      if (message.type === 'events') {
        for (const event of message.items) apply(event);
        const touched = new Set(message.items.map((event) => event.server));
        for (const server of touched) for (const waiter of [...(states.get(server)?.waiters ?? [])]) waiter();
        return;
      }
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    });
    child.once('exit', (code) => reject(new Error(`lean fake Telegram process exited with ${code}`)));
  });
  const ask = <T extends LeanChildMessage>(message: Unnumbered<LeanParentMessage>): Promise<T> => {
    const id = nextId++;
    return new Promise<T>((resolve) => {
      pending.set(id, resolve as (message: LeanChildMessage) => void);
      child.send({ ...message, id } as LeanParentMessage);
    });
  };

  return {
    pid: child.pid!,
    async open() {
      const opened = await ask<Extract<LeanChildMessage, { type: 'opened' }>>({ type: 'open' });
      const state: ServerState = { replies: new Map(), polls: [], answers: [], waiters: new Set() };
      states.set(opened.server, state);
      const until = (condition: () => boolean, timeoutMs: number, what: string) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (!condition()) return;
            clearTimeout(timer);
            state.waiters.delete(check);
            resolve();
          };
          const timer = setTimeout(() => {
            state.waiters.delete(check);
            reject(new Error(`fake Telegram: ${what} not within ${timeoutMs} ms`));
          }, timeoutMs);
          state.waiters.add(check);
          check();
        });
      return {
        apiRoot: opened.apiRoot,
        token: opened.token,
        replies: state.replies,
        polls: state.polls,
        answers: state.answers,
        async push(chats, text) {
          for (const chat of chats) state.replies.delete(chat);
          const pushed = await ask<Extract<LeanChildMessage, { type: 'pushed' }>>({ type: 'push', server: opened.server, chats: [...chats], text });
          return BigInt(pushed.at);
        },
        replied(chats, timeoutMs) {
          let index = 0;
          // Chats are answered in any order; the cursor only moves past answered ones.
          return until(
            () => {
              while (index < chats.length && state.replies.has(chats[index]!)) index++;
              return index === chats.length;
            },
            timeoutMs,
            `replies in ${chats.length} chats`,
          );
        },
        until,
        async close() {
          await ask({ type: 'close', server: opened.server });
          states.delete(opened.server);
        },
      };
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}
