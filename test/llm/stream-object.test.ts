/**
 * `streamObject`: the object growing as the fake server streams it in small chunks, through the
 * real SDKs of both providers, then validated whole.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CancellationError, ConfigurationError, ProviderError } from '../../src/core/errors.ts';
import { NoObjectGeneratedError } from '../../src/llm/generate-object.ts';
import { streamObject, type ObjectStreamEvent } from '../../src/llm/stream-object.ts';
import type { ReplySpec } from '../fakes/fake-model-server.ts';
import { useFakeProviders } from './helpers.ts';

const fake = useFakeProviders();

const plan = z.object({
  title: z.string(),
  steps: z.array(z.object({ action: z.string(), minutes: z.number().int().min(1) })),
});
const trip = { title: 'A day in Oslo, by tram and on foot', steps: [{ action: 'Walk the harbour', minutes: 45 }, { action: 'Tram to the museum island', minutes: 20 }] };

const protocols = {
  anthropic: { provider: () => fake.anthropic, model: 'claude-sonnet-4-6', reply: (value: unknown, name = 'response'): ReplySpec => ({ toolCalls: [{ name, arguments: value as Record<string, unknown> }], chunkSize: 6 }) },
  openai: { provider: () => fake.openai, model: 'gpt-5.2', reply: (value: unknown): ReplySpec => ({ text: JSON.stringify(value), chunkSize: 6 }) },
} as const;

async function collect<T>(events: AsyncIterable<ObjectStreamEvent<T>>): Promise<ObjectStreamEvent<T>[]> {
  const seen: ObjectStreamEvent<T>[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe.each(Object.entries(protocols))('streamObject (%s)', (_protocol, { provider, model, reply }) => {
  it('yields the object growing, each partial new, then the validated object', async () => {
    fake.server.enqueue({ ...reply(trip), usage: { input: 50, output: 40 } });
    const events = await collect(streamObject({ provider: provider(), model, schema: plan, prompt: 'Plan a day.' }));
    const partials = events.filter((event) => event.type === 'partial').map((event) => event.object);
    expect(partials.length).toBeGreaterThan(5);
    // The title grows a few characters at a time, and the steps one after the other.
    expect(partials.some((partial) => partial.title !== undefined && partial.title.length > 0 && partial.title.length < trip.title.length && trip.title.startsWith(partial.title))).toBe(true);
    expect(partials).toContainEqual({ title: trip.title, steps: [{ action: 'Walk the harbour', minutes: 45 }, { action: expect.stringMatching(/^Tram/) }] });
    expect(new Set(partials.map((partial) => JSON.stringify(partial))).size).toBe(partials.length);
    expect(partials.at(-1)).toEqual(trip);
    const last = events.at(-1);
    expect(last?.type).toBe('object');
    if (last?.type !== 'object') return;
    expect(last.result).toMatchObject({ object: trip, attempts: 1, usage: { input: 50, output: 40 } });
    expect(fake.server.requests).toHaveLength(1);
  });

  it('starts again from nothing when the first reply is refused, and tells the model why', async () => {
    fake.server.enqueue(reply({ title: 'Too long', steps: [{ action: 'Wait', minutes: 0 }] }), reply(trip));
    const events = await collect(streamObject({ provider: provider(), model, schema: plan, prompt: 'Plan a day.' }));
    const attempts = events.filter((event) => event.type === 'partial').map((event) => event.attempt);
    expect(attempts[0]).toBe(1);
    const second = events.findIndex((event) => event.type === 'partial' && event.attempt === 2);
    expect(events[second]).toMatchObject({ object: {} });
    expect(JSON.stringify(fake.server.requests[1]?.body.messages)).toContain('steps.0.minutes');
    expect(events.at(-1)).toMatchObject({ type: 'object', result: { object: trip, attempts: 2 } });
  });

  it('throws NoObjectGeneratedError after two bad replies', async () => {
    fake.server.enqueue(reply({ title: 'x' }), reply({ title: 'y' }));
    const failure = await collect(streamObject({ provider: provider(), model, schema: plan, prompt: 'Plan.' })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoObjectGeneratedError);
    expect((failure as NoObjectGeneratedError).problems).toEqual(['steps: Invalid input: expected array, received undefined']);
  });

  it('unwraps a root that is not an object as it streams', async () => {
    fake.server.enqueue(reply({ value: ['alpha.ts', 'beta.ts', 'gamma.ts'] }, 'files'));
    const events = await collect(streamObject({ provider: provider(), model, schema: z.array(z.string()), name: 'files', prompt: 'Which files?' }));
    const partials = events.filter((event) => event.type === 'partial').map((event) => event.object);
    expect(partials.every((partial) => Array.isArray(partial))).toBe(true);
    expect(partials).toContainEqual(['alpha.ts', 'beta.ts']);
    expect(events.at(-1)).toMatchObject({ type: 'object', result: { object: ['alpha.ts', 'beta.ts', 'gamma.ts'] } });
  });
});

describe('streamObject: failures', () => {
  it('throws the provider error of a failed call, without trying again', async () => {
    fake.server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const failure = await collect(streamObject({ provider: fake.anthropic, model: 'claude-sonnet-4-6', schema: plan, prompt: 'Plan.' })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).kind).toBe('OVERLOADED');
    expect(fake.server.requests).toHaveLength(1);
  });

  it('throws CancellationError when aborted midway, after the partials that came', async () => {
    const controller = new AbortController();
    fake.server.enqueue({ ...protocols.openai.reply(trip), heldAfterEvents: { events: 6, by: 'stream-object-abort' } });
    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const event of streamObject({ provider: fake.openai, model: 'gpt-5.2', schema: plan, prompt: 'Plan.', signal: controller.signal })) {
        seen.push(event);
        controller.abort();
      }
    })().catch((error: unknown) => error);
    fake.server.release('stream-object-abort');
    expect(failure).toBeInstanceOf(CancellationError);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('refuses a schema that is no JSON Schema before any call', async () => {
    await expect(collect(streamObject({ provider: fake.openai, model: 'gpt-5.2', schema: z.object({ when: z.date() }), prompt: 'When?' }))).rejects.toThrow(ConfigurationError);
    await expect(collect(streamObject({ provider: fake.openai, model: 'gpt-5.2', schema: plan }))).rejects.toThrow('streamObject: give a prompt or messages');
    expect(fake.server.requests).toHaveLength(0);
  });
});
