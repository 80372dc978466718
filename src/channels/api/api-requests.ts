/**
 * The edge of the OpenAI-compatible API: a `POST /v1/chat/completions` body read with a limit,
 * checked, and turned into what operator takes from it. Only the newest user message is the new
 * input: the conversation's own session keeps the history, so the earlier messages a client sends
 * along (every OpenAI client sends the whole conversation) are not read again, nor is a system
 * message (the profile's persona is the system prompt). Fields operator has no use for
 * (`temperature`, `max_tokens`, `tools`: the tools are operator's own) are taken and left aside.
 */
import * as z from 'zod';
import { bodyLimits } from '../../core/body-limits.ts';
import { readLimitedBody } from '../../core/read-limited-body.ts';
import { FileTooLargeError, maxInboundFileBytes } from '../capped-bytes.ts';
import type { Attachment } from '../types.ts';
import { badRequest, failure, type ApiFailure } from './api-errors.ts';

/**
 * A caller's `user`: 1 to 64 letters, digits, `.`, `_`, `@`, `+` or `-` (an e-mail address fits),
 * so that `api:<user>` is a session key and an admin's name.
 */
export const userPattern = /^[A-Za-z0-9._@+-]{1,64}$/;

/** The conversation of a request that names no `user`: `api:default`. */
export const defaultUser = 'default';

/**
 * Where Open WebUI names its person when `ENABLE_FORWARD_USER_INFO_HEADERS` is on (it sends no
 * `user` in the body): taken when the body names none, so each of its people has a conversation.
 */
export const forwardedUserHeader = 'x-openwebui-user-id';

/** Longest text of the newest message, in characters (as the web chat's). */
export const maxInputText = 100_000;

/** What operator takes from a chat completion request. */
export interface ChatRequest {
  /** The profile asked for. */
  model: string;
  /** Who asks: `user`, else the {@link forwardedUserHeader} header, else {@link defaultUser}. */
  user: string;
  /** The newest user message's text (its text parts, one per line). */
  text: string;
  /** Its images, from data URLs. */
  images: Attachment[];
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
}

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string() }) });
const content = z.union([z.string(), z.array(z.object({ type: z.string() }).loose()), z.null()]);

const bodySchema = z.object({
  model: z.string({ error: 'model is required (a profile: GET /v1/models lists them)' }).min(1, 'model must not be empty'),
  messages: z.array(z.object({ role: z.string({ error: 'every message needs a role' }), content: content.optional() }).loose(), { error: 'messages is required (an array)' }).min(1, 'messages must not be empty'),
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).loose().nullish(),
  user: z.string({ error: 'user must be a string' }).regex(userPattern, 'user must be 1 to 64 letters, digits, ".", "_", "@", "+" or "-"').nullish(),
  n: z.literal(1, 'n must be 1: operator gives one answer').nullish(),
});

/**
 * Reads and checks a request body; the {@link ChatRequest}, or the failure to answer with (413
 * past `bodyLimits.openaiApi`, 415 for a body that is not JSON by its type, else 400 naming the
 * field).
 */
export async function parseChatRequest(request: Request): Promise<ChatRequest | ApiFailure> {
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '')) {
    return failure(415, 'The body must be JSON (content-type: application/json).', 'invalid_request_error', 'unsupported_media_type');
  }
  const text = await readLimitedBody(request, bodyLimits.openaiApi);
  if (text === undefined) return failure(413, `The body is larger than ${bodyLimits.openaiApi} bytes.`, 'invalid_request_error', 'request_too_large');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return badRequest('The body is not valid JSON.', null, 'invalid_json');
  }
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const param = issue?.path.length ? issue.path.map(String).join('.') : null;
    return badRequest(issue?.message ?? 'The body is not a chat completion request.', param);
  }
  const body = parsed.data;
  const index = body.messages.findLastIndex((message) => message.role === 'user');
  if (index < 0) return badRequest('messages holds no user message: the newest one is what operator answers.', 'messages');
  const newest = readContent(body.messages[index]!.content, `messages.${index}.content`);
  if ('status' in newest) return newest;
  if (newest.text.length > maxInputText) return badRequest(`The newest user message is longer than ${maxInputText} characters.`, `messages.${index}.content`);
  if (newest.text.trim() === '' && newest.images.length === 0) return badRequest('The newest user message is empty.', `messages.${index}.content`);
  const forwarded = request.headers.get(forwardedUserHeader)?.trim() || undefined;
  if (body.user == null && forwarded !== undefined && !userPattern.test(forwarded)) return badRequest(`The ${forwardedUserHeader} header must be 1 to 64 letters, digits, ".", "_", "@", "+" or "-".`);
  return { model: body.model, user: body.user ?? forwarded ?? defaultUser, text: newest.text, images: newest.images, stream: body.stream === true, includeUsage: body.stream_options?.include_usage === true };
}

/** A message's content: a string, or text and image parts. */
function readContent(value: unknown, param: string): { text: string; images: Attachment[] } | ApiFailure {
  if (typeof value === 'string') return { text: value, images: [] };
  if (!Array.isArray(value)) return badRequest('The newest user message has no content.', param);
  const texts: string[] = [];
  const images: Attachment[] = [];
  for (const [index, part] of value.entries()) {
    const asText = textPart.safeParse(part);
    if (asText.success) {
      texts.push(asText.data.text);
      continue;
    }
    const asImage = imagePart.safeParse(part);
    if (!asImage.success) return badRequest('Only text and image_url parts are taken.', `${param}.${index}`);
    const image = imageOf(asImage.data.image_url.url, images.length);
    if ('status' in image) return { ...image, error: { ...image.error, param: `${param}.${index}.image_url.url` } };
    images.push(image);
  }
  return { text: texts.join('\n'), images };
}

/** An image part's data URL as an attachment; a link is refused (operator fetches nothing a request names). */
function imageOf(url: string, index: number): Attachment | ApiFailure {
  const match = /^data:(image\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/.exec(url);
  if (!match) return badRequest('An image must be a data URL (data:image/...;base64,...): operator does not fetch links a request names.', null);
  const mediaType = match[1]!.toLowerCase();
  const data = match[2]!;
  const size = Math.floor((data.replace(/\s|=/g, '').length * 3) / 4);
  return {
    kind: 'image',
    mediaType,
    name: `image-${index + 1}.${mediaType.split('/')[1]?.replace(/\W.*$/, '') || 'img'}`,
    size,
    async download(options) {
      const maxBytes = options?.maxBytes ?? maxInboundFileBytes;
      if (size > maxBytes) throw new FileTooLargeError('the image', maxBytes, size);
      return new Uint8Array(Buffer.from(data, 'base64'));
    },
  };
}
