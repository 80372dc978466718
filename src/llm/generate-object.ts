/**
 * Structured output: ask a model for an object of a zod schema and get it parsed and validated.
 * The schema goes to the provider as JSON Schema in a {@link ResponseFormat} (OpenAI:
 * `response_format` json_schema; Anthropic: a tool the model is made to call). A reply that is not
 * JSON or does not validate is shown to the model with what was wrong, once; a second bad reply
 * ends in a {@link NoObjectGeneratedError} naming the problems.
 */
import * as z from 'zod';
import { ConfigurationError, LLMError, errorMessage } from '../core/errors.ts';
import { complete, type CompleteOptions, type ModelResponse } from './complete.ts';
import { redactSecrets } from './redact-secrets.ts';
import {
  addUsage,
  emptyUsage,
  type AssistantMessage,
  type Message,
  type ModelRequest,
  type Provider,
  type ReasoningEffort,
  type ResponseFormat,
  type Usage,
} from './types.ts';

/** What {@link generateObject} is asked with. At least one of `prompt` and `messages`. */
export interface GenerateObjectOptions<Schema extends z.ZodType> {
  provider: Provider;
  /** Provider-native model id. */
  model: string;
  /** What the object must be. A root that is not an object is sent wrapped as `{ value }` (the APIs want an object) and unwrapped. */
  schema: Schema;
  /** The object's name for the model (`a-z`, `A-Z`, `0-9`, `_`, `-`; at most 64). Default `response`. */
  name?: string;
  /** What the object is for, for the model. */
  description?: string;
  /** The system prompt. */
  system?: string;
  /** A user message sent after `messages`. */
  prompt?: string;
  messages?: readonly Message[];
  maxTokens?: number;
  temperature?: number;
  /** Sent as with any call; Anthropic does not think while it is made to answer through a tool. */
  reasoningEffort?: ReasoningEffort;
  /**
   * OpenAI's strict structured outputs. Default: on when the schema fits its subset (every
   * property required, no open objects), else off.
   */
  strict?: boolean;
  signal?: AbortSignal;
  /** Retries of a failed call (rate limit, overload, ...), as {@link complete}'s. */
  retry?: CompleteOptions['retry'];
  sleep?: CompleteOptions['sleep'];
}

/** The object and how it was had. */
export interface GenerateObjectResult<T> {
  object: T;
  /** The accepted reply as the model wrote it (JSON). */
  text: string;
  /** Usage of every attempt. */
  usage: Usage;
  /** 1, or 2 when the first reply was refused. */
  attempts: number;
  /** The accepted reply. */
  message: AssistantMessage;
}

/** How many replies are tried: the first, and one more that is told what was wrong. */
export const maxAttempts = 2;

/** The model gave no valid object, twice. `problems` says what was wrong with the last reply. */
export class NoObjectGeneratedError extends LLMError {
  readonly problems: readonly string[];
  /** The last reply (credentials removed). */
  readonly text: string;
  readonly usage: Usage;

  constructor(model: string, name: string, problems: string[], text: string, usage: Usage) {
    const sample = redactSecrets(text.length > 200 ? `${text.slice(0, 200)}…` : text);
    super(`${model} gave no valid "${name}" object in ${maxAttempts} attempts: ${problems.join('; ')}${sample === '' ? '' : ` (last reply: ${sample})`}`, {
      model,
      name,
      problems,
    });
    this.problems = problems;
    this.text = redactSecrets(text);
    this.usage = usage;
  }
}

/**
 * Asks the model for one object of `schema`.
 *
 * @throws NoObjectGeneratedError when neither the reply nor the one retry is a valid object.
 * @throws ConfigurationError when the schema cannot be written as JSON Schema (a `z.date()`, a
 *   transform's output) or the name is not one the APIs take.
 * @throws ProviderError / CancellationError as {@link complete}.
 * @example
 * const { object } = await generateObject({ provider, model: 'claude-haiku-4-5', schema: z.object({ next: z.enum(['a', 'b']) }), prompt: 'Which next?' });
 */
export async function generateObject<Schema extends z.ZodType>(options: GenerateObjectOptions<Schema>): Promise<GenerateObjectResult<z.output<Schema>>> {
  const { name, responseFormat, wrapped, messages } = objectRequest(options, 'generateObject');
  let usage = emptyUsage();
  let problems: string[] = [];
  let text = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const reply = await complete(options.provider, objectCall(options, messages, responseFormat), { retry: options.retry, sleep: options.sleep });
    usage = addUsage(usage, reply.usage);
    text = reply.text;
    const checked = checkObject(options.schema, reply, wrapped);
    if (checked.ok) return { object: checked.value, text: reply.text, usage, attempts: attempt, message: reply.message };
    problems = checked.problems;
    messages.push(...correction(name, reply.text, problems));
  }
  throw new NoObjectGeneratedError(options.model, name, problems, text, usage);
}

/** What both ways of asking for an object send: the response format and the conversation. */
export interface ObjectRequest {
  name: string;
  responseFormat: ResponseFormat;
  /** Whether the schema's root was wrapped as `{ value }`. */
  wrapped: boolean;
  /** The conversation so far (a retry adds to it). */
  messages: Message[];
}

/**
 * The response format and conversation of `options`.
 *
 * @throws ConfigurationError for a bad name, a schema that is no JSON Schema, or no prompt.
 */
export function objectRequest(options: Omit<GenerateObjectOptions<z.ZodType>, 'retry' | 'sleep'>, caller: string): ObjectRequest {
  const name = options.name ?? 'response';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new ConfigurationError(`${caller}: the name "${name}" must be 1-64 characters of a-z, A-Z, 0-9, _ and -`);
  }
  const { schema: jsonSchema, wrapped } = objectJsonSchema(options.schema, caller);
  const responseFormat: ResponseFormat = {
    type: 'json_schema',
    name,
    ...(options.description !== undefined && { description: options.description }),
    schema: jsonSchema,
    strict: options.strict ?? fitsStrictMode(jsonSchema),
  };
  const messages: Message[] = [...(options.messages ?? [])];
  if (options.prompt !== undefined) messages.push({ role: 'user', content: [{ type: 'text', text: options.prompt }] });
  if (messages.length === 0) throw new ConfigurationError(`${caller}: give a prompt or messages`);
  return { name, responseFormat, wrapped, messages };
}

/** One attempt's model request. */
export function objectCall(options: Omit<GenerateObjectOptions<z.ZodType>, 'retry' | 'sleep'>, messages: readonly Message[], responseFormat: ResponseFormat): ModelRequest {
  return {
    model: options.model,
    systemPrompt: options.system ?? '',
    messages: [...messages],
    responseFormat,
    maxTokens: options.maxTokens,
    temperature: options.temperature,
    reasoningEffort: options.reasoningEffort,
    signal: options.signal,
  };
}

/** The model's refused reply and what was wrong with it, for the next attempt (its reasoning left out: nothing to keep). */
export function correction(name: string, text: string, problems: readonly string[]): Message[] {
  return [
    { role: 'assistant', content: text === '' ? [] : [{ type: 'text', text }] },
    {
      role: 'user',
      content: [{ type: 'text', text: `Your reply was not a valid "${name}" object: ${problems.join('; ')}. Reply again with only the corrected JSON object.` }],
    },
  ];
}

/** A reply checked against the schema: the object, or what is wrong. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Parses and validates a reply (the root unwrapped from `{ value }` when `wrapped`). */
export function checkObject<Schema extends z.ZodType>(schema: Schema, reply: Pick<ModelResponse, 'text' | 'stopReason' | 'toolCalls'>, wrapped: boolean): Checked<z.output<Schema>> {
  const { text, stopReason } = reply;
  const cutOff = stopReason === 'length' ? ' (cut off at the token limit)' : '';
  if (stopReason === 'content-filter') return { ok: false, problems: ['the model refused to answer (content filter)'] };
  if (text.trim() === '' && reply.toolCalls.length > 0) {
    return { ok: false, problems: [`the model called ${reply.toolCalls.map((call) => call.name).join(', ')} instead of giving the object`] };
  }
  if (text.trim() === '') return { ok: false, problems: [`the reply was empty${cutOff}`] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`the reply is not JSON${cutOff}: ${errorMessage(error)}`] };
  }
  if (wrapped) {
    if (typeof parsed !== 'object' || parsed === null || !('value' in parsed)) return { ok: false, problems: ['the reply has no "value"'] };
    parsed = parsed.value;
  }
  const result = schema.safeParse(parsed);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(the object)'}: ${issue.message}`) };
}

/** The schema as JSON Schema with an object at its root, and whether it had to be wrapped for that. */
export function objectJsonSchema(schema: z.ZodType, caller = 'generateObject'): { schema: Record<string, unknown>; wrapped: boolean } {
  let json: Record<string, unknown>;
  try {
    // `input`: the model writes what the schema parses.
    json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigurationError(`${caller}: the schema cannot be written as JSON Schema: ${errorMessage(error)}`);
  }
  delete json.$schema;
  if (json.type === 'object') return { schema: closeObjects(json), wrapped: false };
  // Shared definitions stay at the root, where their references point.
  const { definitions, $defs, ...inner } = json;
  const root: Record<string, unknown> = { type: 'object', properties: { value: inner }, required: ['value'] };
  if (definitions !== undefined) root.definitions = definitions;
  if ($defs !== undefined) root.$defs = $defs;
  return { schema: closeObjects(root), wrapped: true };
}

/**
 * Says `additionalProperties: false` on objects that say nothing about further properties: the
 * model is not to invent fields (zod would drop them anyway), and strict mode requires it.
 */
function closeObjects(schema: Record<string, unknown>): Record<string, unknown> {
  eachSchema(schema, (node) => {
    if ((node.type === 'object' || isRecord(node.properties)) && node.additionalProperties === undefined) node.additionalProperties = false;
  });
  return schema;
}

/** Whether OpenAI's strict mode takes the schema: every object closed, every property required. */
export function fitsStrictMode(schema: Record<string, unknown>): boolean {
  let fits = true;
  eachSchema(schema, (node) => {
    if (node.type !== 'object' && !isRecord(node.properties)) return;
    const required = Array.isArray(node.required) ? node.required : [];
    const keys = isRecord(node.properties) ? Object.keys(node.properties) : [];
    if (node.additionalProperties !== false || keys.some((key) => !required.includes(key))) fits = false;
  });
  return fits;
}

/** Calls `visit` on `node` and every schema nested in it. */
function eachSchema(node: unknown, visit: (schema: Record<string, unknown>) => void): void {
  if (!isRecord(node)) return;
  visit(node);
  for (const key of ['properties', 'patternProperties', 'definitions', '$defs']) {
    const children = node[key];
    if (isRecord(children)) for (const child of Object.values(children)) eachSchema(child, visit);
  }
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const child = node[key];
    if (Array.isArray(child)) for (const item of child) eachSchema(item, visit);
    else eachSchema(child, visit);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
