import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { untilAborted } from '../../src/llm/providers/until-aborted.ts';

/** A stream whose reads the test answers one by one; `returned` says whether it was closed. */
function controlledStream<T>() {
  const waiting: ((result: IteratorResult<T>) => void)[] = [];
  const state = { returned: false, reads: 0 };
  const iterator: AsyncIterator<T> = {
    next: () => {
      state.reads++;
      return new Promise((resolve) => waiting.push(resolve));
    },
    return: async () => {
      state.returned = true;
      return { done: true, value: undefined };
    },
  };
  return {
    stream: { [Symbol.asyncIterator]: () => iterator } as AsyncIterable<T>,
    state,
    /** Answers the oldest read waiting. */
    give: (result: IteratorResult<T>) => waiting.shift()!(result),
    waitingReads: () => waiting.length,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('untilAborted', () => {
  it('yields every event of a stream nobody aborts, then ends with it', async () => {
    async function* events() {
      yield* [1, 2, 3];
    }
    const seen: number[] = [];
    for await (const event of untilAborted(events(), new AbortController().signal)) seen.push(event);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('stops at once when aborted while a read waits forever, and closes the stream', async () => {
    const { stream, state, give } = controlledStream<string>();
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const event of untilAborted(stream, controller.signal)) seen.push(event);
    })();
    await tick();
    give({ done: false, value: 'first' });
    await tick();
    expect(seen).toEqual(['first']);
    // The second read is never answered: only the abort ends the loop.
    controller.abort();
    await done;
    expect(seen).toEqual(['first']);
    expect(state.returned).toBe(true);
  });

  it('reads nothing more once aborted between two reads', async () => {
    const { stream, state, give, waitingReads } = controlledStream<string>();
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const event of untilAborted(stream, controller.signal)) {
        seen.push(event);
        controller.abort();
      }
    })();
    await tick();
    give({ done: false, value: 'only' });
    await done;
    expect(seen).toEqual(['only']);
    expect(state.reads).toBe(1);
    expect(waitingReads()).toBe(0);
  });

  it('passes a failing read on', async () => {
    async function* failing() {
      yield 'a';
      throw new Error('connection reset');
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of untilAborted(failing(), new AbortController().signal)) seen.push(event);
      })(),
    ).rejects.toThrow('connection reset');
    expect(seen).toEqual(['a']);
  });

  it('keeps no event it has handed on while the stream goes on', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { stream, give } = controlledStream<{ payload: number[] }>();
    const controller = new AbortController();
    const handedOn: WeakRef<object>[] = [];
    const done = (async () => {
      for await (const event of untilAborted(stream, controller.signal)) handedOn.push(new WeakRef(event));
    })();
    for (let index = 0; index < 50; index++) {
      await tick();
      give({ done: false, value: { payload: Array.from({ length: 100 }, () => index) } });
    }
    await tick();
    expect(handedOn).toHaveLength(50);
    gc();
    // The stream is still open (a read waits): nothing but the iteration could keep the events,
    // and the last one may still be in its variables.
    expect(handedOn.slice(0, -1).filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    controller.abort();
    await done;
  });
});
