/**
 * The fakes as the tests inside workerd reach them: through the control server in Node (see
 * `fakes-setup.ts` and `fake-control.ts`).
 */
import { inject } from 'vitest';
import '../../worker-setup/provided.ts';

/** Calls `method` of the fake `name` with `args` (JSON); resolves to its JSON result. */
export async function callFake<T = unknown>(name: 'model' | 'telegram' | 'slack' | 'discord', method: string, ...args: unknown[]): Promise<T> {
  const response = await fetch(`${inject('fakeControl')}/${name}/${method}`, { method: 'POST', body: JSON.stringify(args) });
  if (!response.ok) throw new Error(`fake ${name}.${method}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Reads the property `property` of the fake `name`. */
export async function readFake<T = unknown>(name: 'model' | 'telegram' | 'slack' | 'discord', property: string): Promise<T> {
  const response = await fetch(`${inject('fakeControl')}/${name}/${property}`);
  if (!response.ok) throw new Error(`fake ${name}.${property}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Polls `read` until `done` holds (or `timeoutMs` passes, then the last value is returned). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}
