/**
 * Shared pieces of the session tests: stores on both drivers, a clock, messages, and a store
 * wrapper that records every call.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssistantMessage, UserMessage } from '../../src/llm/types.ts';
import type { Store } from '../../src/store/store.ts';
import { createStore } from '../../src/store/unstorage-store.ts';

/** A store on one driver and a way to open the same data again and to clean up. */
export interface StoreFixture {
  store: Store;
  /** A second store over the same data, as a restarted process would see it. */
  reopen(): Store;
  /** The fs base folder, on the fs driver. */
  base?: string;
  cleanup(): Promise<void>;
}

/** Builders of a fresh store per driver. */
export const drivers: Record<'memory' | 'fs', () => Promise<StoreFixture>> = {
  async memory() {
    const store = createStore({ driver: 'memory' });
    return { store, reopen: () => store, cleanup: () => store.close() };
  },
  async fs() {
    const base = await mkdtemp(join(tmpdir(), 'operator-session-'));
    const store = createStore({ driver: 'fs', base });
    return {
      store,
      base,
      reopen: () => createStore({ driver: 'fs', base }),
      cleanup: async () => {
        await store.close();
        await rm(base, { recursive: true, force: true });
      },
    };
  },
};

/** A manual clock starting at a fixed instant. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance(ms: number): void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** Sequential fixed-width ids: `e0000001`, `e0000002`, ... */
export function sequentialIds(prefix = 'e'): () => string {
  let next = 0;
  return () => `${prefix}${String(++next).padStart(7, '0')}`;
}

export function user(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function assistant(text: string): AssistantMessage {
  return { role: 'assistant', content: [{ type: 'text', text }], model: 'test-model', stopReason: 'stop' };
}

/** Calls made through a {@link recordingStore}. */
export interface StoreCall {
  method: keyof Store;
  key: string;
  /** Length of the record, for `append`. */
  bytes?: number;
}

/** Wraps `store`, recording every call into `calls`. */
export function recordingStore(store: Store): { store: Store; calls: StoreCall[] } {
  const calls: StoreCall[] = [];
  const recorded = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const call: StoreCall = { method: property as keyof Store, key: String(args[0]) };
        if (property === 'append') call.bytes = Buffer.byteLength(String(args[1]));
        calls.push(call);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: recorded, calls };
}
