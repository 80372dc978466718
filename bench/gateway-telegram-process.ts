/**
 * The fake Telegram Bot API server (`test/fakes/fake-telegram-server.ts`) in a child process, as
 * the real Telegram would be: its CPU work stays out of the benchmark's event loop (the machine
 * has two cores and the gateway, the fake model and the benchmark share them). The child reports
 * each final reply it receives with its arrival time; this side keeps them per chat.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the parent sends the child. */
export type ParentMessage = { type: 'verify'; id: number; chats: number[] };

/** What the child sends the parent. */
type ChildMessage =
  | { type: 'ready'; apiRoot: string; token: string }
  | { type: 'replies'; items: [number, string][] }
  | { type: 'verified'; id: number; missing: number; calls: number };

/** A fake Telegram server running in its own process. */
export interface FakeTelegramProcess {
  readonly apiRoot: string;
  readonly token: string;
  readonly pid: number;
  /** Arrival time (`process.hrtime.bigint()`) of each chat's latest final reply. */
  readonly arrived: ReadonlyMap<number, bigint>;
  /** Forgets the replies seen so far. */
  reset(): void;
  /** Resolves once every chat of `chats` has a reply since the last reset. */
  replies(chats: readonly number[], timeoutMs: number): Promise<void>;
  /** How many of `chats` do not show the whole reply as the bot's last message there. */
  unanswered(chats: readonly number[]): Promise<number>;
  close(): Promise<void>;
}

const childEntry = fileURLToPath(new URL('./gateway-telegram-child.ts', import.meta.url));
const runner = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

/** Starts the child; every bot message whose text is exactly `replyText` counts as a final reply. */
export async function startFakeTelegramProcess(replyText: string): Promise<FakeTelegramProcess> {
  const child: ChildProcess = fork(runner, [childEntry, replyText], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const arrived = new Map<number, bigint>();
  const waiters = new Set<() => void>();
  const verifications = new Map<number, (missing: number) => void>();
  let nextId = 0;
  const ready = await new Promise<{ apiRoot: string; token: string }>((resolve, reject) => {
    child.on('message', (message: ChildMessage) => {
      switch (message.type) {
        case 'ready':
          resolve(message);
          break;
        case 'replies':
          for (const [chat, at] of message.items) arrived.set(chat, BigInt(at));
          for (const waiter of [...waiters]) waiter();
          break;
        case 'verified':
          verifications.get(message.id)?.(message.missing);
          verifications.delete(message.id);
          break;
      }
    });
    child.once('exit', (code) => reject(new Error(`fake Telegram process exited with ${code}`)));
  });

  return {
    apiRoot: ready.apiRoot,
    token: ready.token,
    pid: child.pid!,
    arrived,
    reset: () => arrived.clear(),
    replies(chats, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        let index = 0;
        const check = () => {
          // Chats are answered in any order; the cursor only moves past answered ones.
          while (index < chats.length && arrived.has(chats[index]!)) index++;
          if (index < chats.length) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const missing = chats.filter((chat) => !arrived.has(chat)).length;
          reject(new Error(`fake Telegram: ${missing} of ${chats.length} chats had no reply within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    unanswered(chats) {
      const id = nextId++;
      return new Promise<number>((resolve) => {
        verifications.set(id, resolve);
        child.send({ type: 'verify', id, chats: [...chats] } satisfies ParentMessage);
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}
