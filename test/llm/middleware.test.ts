/**
 * Model-call middleware around the real Anthropic provider and SDK, against the fake server:
 * what a hook changes shows in the recorded request and in the events the caller gets.
 */
import { describe, expect, it } from 'vitest';
import { withMiddleware, type ModelMiddleware } from '../../src/llm/middleware.ts';
import type { Provider, StreamEvent } from '../../src/llm/types.ts';
import { finalError, finalMessage, request, run, secretKey, useFakeProviders } from './helpers.ts';

const fake = useFakeProviders();

/** A middleware that writes down when each of its hooks runs. */
function tracer(name: string, trace: string[]): ModelMiddleware {
  return {
    name,
    beforeRequest(modelRequest) {
      trace.push(`${name}.before`);
      return { ...modelRequest, stopSequences: [...(modelRequest.stopSequences ?? []), name] };
    },
    async *wrapStream(events) {
      trace.push(`${name}.wrap`);
      for await (const event of events) {
        if (event.type === 'message-end') trace.push(`${name}.sees-end`);
        yield event;
      }
    },
    afterResponse(message) {
      trace.push(`${name}.after:${message.stopReason}`);
    },
  };
}

describe('model middleware', () => {
  it('runs before-request in order, wraps the stream first-outermost and after-response in reverse', async () => {
    const trace: string[] = [];
    const wrapped = withMiddleware(fake.anthropic, [tracer('outer', trace), tracer('inner', trace)]);
    fake.server.enqueue({ text: 'hello' });
    const message = finalMessage(await run(wrapped, request('claude-sonnet-4-6')));
    expect(message.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(trace).toEqual(['outer.before', 'inner.before', 'outer.wrap', 'inner.wrap', 'inner.sees-end', 'outer.sees-end', 'inner.after:stop', 'outer.after:stop']);
    // What before-request returned is what the SDK sent.
    expect(fake.server.requests[0]?.body.stop_sequences).toEqual(['outer', 'inner']);
  });

  it('hands the caller the events a wrapper changed, and after-response the message the caller gets', async () => {
    let seen: string | undefined;
    const shout: ModelMiddleware = {
      name: 'shout',
      async *wrapStream(events) {
        for await (const event of events) {
          if (event.type === 'text-delta') yield { ...event, text: event.text.toUpperCase() };
          else if (event.type === 'message-end') {
            yield { ...event, message: { ...event.message, content: event.message.content.map((part) => (part.type === 'text' ? { ...part, text: part.text.toUpperCase() } : part)) } };
          } else yield event;
        }
      },
    };
    const watcher: ModelMiddleware = { name: 'watcher', afterResponse: (message) => void (seen = JSON.stringify(message.content)) };
    fake.server.enqueue({ text: 'quiet words', chunkSize: 4 });
    const events = await run(withMiddleware(fake.anthropic, [watcher, shout]), request('claude-sonnet-4-6'));
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.text).join('')).toBe('QUIET WORDS');
    expect(seen).toBe(JSON.stringify([{ type: 'text', text: 'QUIET WORDS' }]));
  });

  it('waits for after-response before the caller gets the end', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const slow: ModelMiddleware = {
      name: 'slow',
      async afterResponse() {
        order.push('hook started');
        await held;
        order.push('hook done');
      },
    };
    fake.server.enqueue({ text: 'x' });
    const reading = (async () => {
      for await (const event of withMiddleware(fake.anthropic, [slow]).stream(request('claude-sonnet-4-6'))) {
        if (event.type === 'message-start') setImmediate(release);
        if (event.type === 'message-end') order.push('caller got the end');
      }
    })();
    await reading;
    expect(order).toEqual(['hook started', 'hook done', 'caller got the end']);
  });

  it('gives no after-response for a failed call, whose error reaches the caller unchanged', async () => {
    const trace: string[] = [];
    fake.server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const { error } = finalError(await run(withMiddleware(fake.anthropic, [tracer('only', trace)]), request('claude-sonnet-4-6')));
    expect(error.kind).toBe('OVERLOADED');
    expect(trace).toEqual(['only.before', 'only.wrap']);
  });

  it('is the provider itself without middleware', () => {
    expect(withMiddleware(fake.anthropic, [])).toBe(fake.anthropic);
  });
});

describe('model middleware: failing hooks', () => {
  const failing = (hook: 'beforeRequest' | 'afterResponse' | 'wrapStream'): ModelMiddleware => ({
    name: 'broken',
    [hook]: hook === 'wrapStream'
      ? // eslint-disable-next-line require-yield
        async function* () {
          throw new Error(`no stream today, key=${secretKey}`);
        }
      : () => {
          throw new Error(`no ${hook} today, key=${secretKey}`);
        },
  });

  it('ends the call with an error naming the middleware and sends nothing when before-request throws', async () => {
    const events = await run(withMiddleware(fake.anthropic, [failing('beforeRequest')]), request('claude-sonnet-4-6'));
    const { error } = finalError(events);
    expect(events).toHaveLength(1);
    expect(error.message).toBe('anthropic: middleware broken failed in beforeRequest: no beforeRequest today, key=[redacted]');
    expect(error.kind).toBe('UNKNOWN');
    expect(fake.server.requests).toHaveLength(0);
  });

  it('ends with an error carrying the finished message when after-response throws', async () => {
    fake.server.enqueue({ text: 'done' });
    const events = await run(withMiddleware(fake.anthropic, [failing('afterResponse')]), request('claude-sonnet-4-6'));
    const { error, partial } = finalError(events);
    expect(error.message).toContain('middleware broken failed in afterResponse');
    expect(error.message).not.toContain(secretKey);
    expect(partial?.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(events.some((event) => event.type === 'message-end')).toBe(false);
  });

  it('turns a wrapper that throws into an error event', async () => {
    fake.server.enqueue({ text: 'done' });
    const { error } = finalError(await run(withMiddleware(fake.anthropic, [failing('wrapStream')]), request('claude-sonnet-4-6')));
    expect(error.message).toContain('middleware broken failed in wrapStream: no stream today');
  });

  it('holds a provider that breaks the stream contract to it: a throw or an early end is an error event', async () => {
    const watcher: ModelMiddleware = { name: 'watcher', afterResponse: () => undefined };
    const broken = (end: 'throw' | 'stop'): Provider => ({
      name: 'broken',
      async *stream() {
        yield { type: 'text-delta', text: 'half' };
        if (end === 'throw') throw new Error(`socket gone, key=${secretKey}`);
      },
    });
    const thrown = await run(withMiddleware(broken('throw'), [watcher]), request('m'));
    expect(thrown.map((event) => event.type)).toEqual(['text-delta', 'error']);
    expect(finalError(thrown).error.message).toBe('broken: socket gone, key=[redacted]');
    const stopped = await run(withMiddleware(broken('stop'), [watcher]), request('m'));
    expect(finalError(stopped).error.message).toBe('broken: the stream ended before the message was complete');
  });

  it('turns a provider or a wrapper that throws before streaming into an error event', async () => {
    const sudden: Provider = {
      name: 'sudden',
      stream() {
        throw new Error('not today');
      },
    };
    const thrown = await run(withMiddleware(sudden, [{ name: 'watcher', afterResponse: () => undefined }]), request('m'));
    expect(finalError(thrown).error.message).toBe('sudden: not today');
    const eager: ModelMiddleware = {
      name: 'eager',
      wrapStream() {
        throw new Error('no wrapping');
      },
    };
    const wrapped = await run(withMiddleware(fake.anthropic, [eager]), request('claude-sonnet-4-6'));
    expect(finalError(wrapped).error.message).toBe('anthropic: middleware eager failed in wrapStream: no wrapping');
  });

  it('closes the provider stream when the caller stops reading', async () => {
    let closed = false;
    const endless: Provider = {
      name: 'endless',
      async *stream() {
        try {
          for (;;) yield { type: 'text-delta', text: 'more' };
        } finally {
          closed = true;
        }
      },
    };
    for await (const event of withMiddleware(endless, [{ name: 'watcher', afterResponse: () => undefined }]).stream(request('m'))) {
      if (event.type === 'text-delta') break;
    }
    expect(closed).toBe(true);
  });

  it('turns a wrapper that stops early into an error event', async () => {
    const early: ModelMiddleware = {
      name: 'early',
      async *wrapStream(events: AsyncIterable<StreamEvent>) {
        for await (const event of events) {
          if (event.type === 'message-end') return;
          yield event;
        }
      },
    };
    fake.server.enqueue({ text: 'done' });
    const { error } = finalError(await run(withMiddleware(fake.anthropic, [early]), request('claude-sonnet-4-6')));
    expect(error.message).toBe('anthropic: middleware early (wrapStream) ended before the message was complete');
  });
});
