/**
 * Structured output as it streams: the object of a zod schema, shown part by part while the
 * model writes it, then parsed and validated whole, as `generateObject` does (one retry told what
 * was wrong with a bad reply).
 */
import type * as z from 'zod';
import { CancellationError, InternalError } from '../core/errors.ts';
import { modelResponse } from './complete.ts';
import { checkObject, correction, maxAttempts, NoObjectGeneratedError, objectCall, objectRequest, type GenerateObjectOptions, type GenerateObjectResult } from './generate-object.ts';
import { parsePartialJson } from './partial-json.ts';
import { addUsage, emptyUsage, type AssistantMessage } from './types.ts';

/** What {@link streamObject} is asked with: as `generateObject`, without retries of failed calls. */
export type StreamObjectOptions<Schema extends z.ZodType> = Omit<GenerateObjectOptions<Schema>, 'retry' | 'sleep'>;

/** An object on its way: what of each property, item and string has arrived. */
export type PartialObject<T> = T extends readonly (infer Item)[] ? PartialObject<Item>[] : T extends object ? { [Key in keyof T]?: PartialObject<T[Key]> } : T;

/** What {@link streamObject} yields. */
export type ObjectStreamEvent<T> =
  /**
   * The object as far as it has come, each time it grew; not validated yet. `attempt` 2: the
   * first reply was refused and this one starts again from nothing.
   */
  | { type: 'partial'; object: PartialObject<T>; attempt: number }
  /** The finished, validated object: the last event. */
  | { type: 'object'; result: GenerateObjectResult<T> };

/**
 * Streams one object of `schema`: `partial` events as the JSON arrives, then one `object`.
 * A failed call is not tried again (what was shown of it would start over): its error is thrown.
 *
 * @throws NoObjectGeneratedError when neither the reply nor the one retry is a valid object.
 * @throws ConfigurationError as `generateObject`.
 * @throws ProviderError when the call fails; CancellationError when `signal` aborts.
 * @example
 * for await (const event of streamObject({ provider, model, schema, prompt: 'Plan the trip.' })) {
 *   if (event.type === 'partial') show(event.object);
 *   else done(event.result.object);
 * }
 */
export async function* streamObject<Schema extends z.ZodType>(options: StreamObjectOptions<Schema>): AsyncGenerator<ObjectStreamEvent<z.output<Schema>>, void, undefined> {
  const { name, responseFormat, wrapped, messages } = objectRequest(options, 'streamObject');
  let usage = emptyUsage();
  let problems: string[] = [];
  let text = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let message: AssistantMessage | undefined;
    let written = '';
    let shown = '';
    for await (const event of options.provider.stream(objectCall(options, messages, responseFormat))) {
      if (event.type === 'text-delta') {
        written += event.text;
        const partial = unwrap(parsePartialJson(written), wrapped);
        const json = partial === undefined ? '' : JSON.stringify(partial);
        if (json === shown) continue;
        shown = json;
        yield { type: 'partial', object: partial as PartialObject<z.output<Schema>>, attempt };
      } else if (event.type === 'error') {
        throw event.error;
      } else if (event.type === 'message-end') {
        message = event.message;
      }
    }
    if (message === undefined) throw new InternalError(`${options.provider.name}: model stream ended without a final message`);
    if (message.stopReason === 'aborted') throw new CancellationError();
    const reply = modelResponse(message);
    usage = addUsage(usage, reply.usage);
    text = reply.text;
    const checked = checkObject(options.schema, reply, wrapped);
    if (checked.ok) {
      yield { type: 'object', result: { object: checked.value, text: reply.text, usage, attempts: attempt, message } };
      return;
    }
    problems = checked.problems;
    messages.push(...correction(name, reply.text, problems));
  }
  throw new NoObjectGeneratedError(options.model, name, problems, text, usage);
}

/** The object inside a wrapped root (`{ value }`), or nothing while its value has not begun. */
function unwrap(partial: unknown, wrapped: boolean): unknown {
  if (!wrapped || partial === undefined) return partial;
  return typeof partial === 'object' && partial !== null && 'value' in partial ? partial.value : undefined;
}
