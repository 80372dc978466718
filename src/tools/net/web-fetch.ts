/**
 * The `web_fetch` tool: one web page, read as markdown. Cheaper than the browser for reading
 * (no chromium, no scripts run) and safe to give: only http and https, never this machine or its
 * networks unless `allowPrivateNetwork`, the gateway's allow and block lists, no cookies or
 * credentials sent, bounded in bytes, time and characters. Who gets it: the `browser` tool group
 * ("the web"), like the browser.
 */
import * as z from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { sniffLength } from '../builtin/file-type.ts';
import { errorResult } from '../builtin/results.ts';
import { defineTool, type Tool, type ToolOutput } from '../tool.ts';
import { contentKind, decodeBody, parseContentType, type ContentKind } from './content-kind.ts';
import { FetchCache, type CachedPage } from './fetch-cache.ts';
import { FetchError } from './fetch-error.ts';
import { httpGet, withoutSecrets, type HttpResponse, type ResponseHead } from './http-get.ts';
import { checkUrl, type HostLookup } from './url-policy.ts';

/** Options of {@link createWebFetchTool}. */
export interface WebFetchToolOptions {
  /** Whether this machine, private networks and link-local addresses may be fetched (operator.json `allowPrivateNetwork`). */
  allowPrivateNetwork: boolean;
  /** When not empty, only these sites (patterns: see `url-policy.ts`); shared with the browser. */
  allowUrls?: readonly string[];
  /** Never these sites, redirects included. */
  blockUrls?: readonly string[];
  /** The whole fetch, redirects and body included. Default 20 s. */
  timeoutMs?: number;
  /** Most body bytes read (after decompression); the rest is not downloaded. Default 5 MiB. */
  maxBytes?: number;
  /** The cache of recent fetches; default one of this tool's own (5 minutes, bounded). */
  cache?: FetchCache;
  /** Resolves host names when connecting; default the system resolver (tests inject one). */
  lookup?: HostLookup;
}

/** Sent with every request, and nothing else of the gateway's. */
export const webFetchUserAgent = 'operator-web-fetch/1.0';
/** Characters returned when the model does not say. */
export const defaultMaxChars = 20_000;
/**
 * Most characters of page returned. The engine cuts any tool output over 30,000 characters
 * (`fallbackCharLimit` in `src/agent/truncation.ts`, web_fetch has no limit of its own there) by
 * dropping its middle: staying under it, with room for the header and the cut marker, keeps the
 * tool's own cut, which says how to see more, the only one.
 */
export const maxCharsLimit = 28_000;
/**
 * Most characters of a page kept (in the cache) for reading on with `offset`: a 5 MB download
 * rarely converts to more, and the cache's own bound counts them.
 */
export const maxKeptChars = 1_000_000;
/** The longest output, header and marker included (see {@link maxCharsLimit}). */
export const maxOutputChars = 30_000;
/** Most redirects followed. */
export const maxRedirects = 5;
/** Body bytes read from an error answer, for its excerpt. */
const errorBodyBytes = 32 * 1024;
/** Where there is no conversation (the terminal chat), every fetch shares one cache key. */
const noConversation = 'terminal';

const parameters = z.object({
  url: z.string().min(1).max(8_000).describe('The address, http:// or https://.'),
  max_chars: z
    .int()
    .min(1)
    .optional()
    .describe(`Most characters of the page to return (default ${defaultMaxChars}, at most ${maxCharsLimit}).`),
  offset: z.int().min(0).optional().describe('Where to start in the page\'s text, in characters (default 0): to read on past a cut, give the offset its marker names.'),
});

/** Creates the `web_fetch` tool. */
export function createWebFetchTool(options: WebFetchToolOptions): Tool<typeof parameters> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const cache = options.cache ?? new FetchCache();
  // Scheme and the allow/block lists only: whether the address is private is decided when the
  // socket connects (http-get.ts), on the address it connects to, not on a lookup made here.
  const policy = { allowPrivateNetwork: true, allowUrls: options.allowUrls ?? [], blockUrls: options.blockUrls ?? [] };
  const description =
    'Fetch one web page (http or https) and read it as markdown: its main content with headings, links, lists and tables, ' +
    'without scripts, styles or navigation. Plain text, markdown, JSON and XML come back as they are; images, PDFs and other ' +
    `binary files are refused. The result is cut at max_chars (default ${defaultMaxChars}, at most ${maxCharsLimit}); offset reads on from where a cut ended. The same ` +
    'address fetched again in this conversation within 5 minutes comes from a cache. No cookies or logins are sent: pages ' +
    'that need them, or that build their content with scripts, need the browser tool where it is offered' +
    (options.allowPrivateNetwork ? '.' : '. This machine and private networks cannot be reached.');

  return defineTool({
    name: 'web_fetch',
    machine: 'browser',
    // Anyone may have written a page: what it says taints the turn (see `turn-taint.ts`).
    untrustedSource: (args) => `a web page (${String(args['url']).slice(0, 200)})`,
    description,
    parameters,
    // The fetch's own limit answers first, with a clearer message; this only catches a hang.
    timeoutMs: timeoutMs + 10_000,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      let url: URL;
      try {
        url = withoutSecrets(new URL(args.url.trim()));
      } catch {
        return errorResult(`"${args.url.slice(0, 200)}" is not a web address (it needs http:// or https://)`);
      }
      const maxChars = Math.min(args.max_chars ?? defaultMaxChars, maxCharsLimit);
      const conversation = context.turn?.sessionKey ?? noConversation;
      const cached = cache.get(conversation, url.href);
      const offset = args.offset ?? 0;
      if (cached) return shown(cached.page, offset, maxChars, cached.ageMs);
      try {
        const response = await httpGet(url, {
          allowPrivateNetwork: options.allowPrivateNetwork,
          checkUrl: (address) => checkUrl(address, policy),
          bodyLimit: (head) => bodyLimit(head, maxBytes),
          headers: requestHeaders,
          maxRedirects,
          timeoutMs,
          signal: context.signal,
          lookup: options.lookup,
        });
        const page = await readPage(response, maxBytes);
        if (typeof page === 'string') return errorResult(page);
        cache.set(conversation, url.href, page);
        return shown(page, offset, maxChars);
      } catch (error) {
        context.signal.throwIfAborted();
        if (error instanceof FetchError) return errorResult(error.message);
        return errorResult(`fetching ${url.href} failed: ${errorMessage(error)}`);
      }
    },
  });
}

const requestHeaders: Readonly<Record<string, string>> = {
  'user-agent': webFetchUserAgent,
  accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
};

/** How much of an answer to download: nothing of a declared binary, an excerpt of an error. */
function bodyLimit(head: ResponseHead, maxBytes: number): number {
  if (!isSuccess(head.status)) return errorBodyBytes;
  const type = parseContentType(head.headers['content-type']);
  return type.mediaType !== 'unknown' && contentKind(type, new Uint8Array()) === 'binary' ? 0 : maxBytes;
}

/** The page an answer holds, or why it is not one (said to the model). */
async function readPage(response: HttpResponse, maxBytes: number): Promise<CachedPage | string> {
  const type = parseContentType(response.headers['content-type']);
  const kind: ContentKind = contentKind(type, response.body.subarray(0, sniffLength));
  if (!isSuccess(response.status)) {
    const excerpt = kind === 'binary' ? '' : excerptOf(await toText(response, type, kind));
    return `${response.url.href} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${excerpt ? `: ${excerpt}` : ' (no text)'}`;
  }
  if (kind === 'binary') {
    const what = type.mediaType === 'unknown' ? 'binary data with no content type' : type.mediaType;
    return `${response.url.href} is ${what} (${sizeOf(response)}), not a web page or text: web_fetch reads only pages and text`;
  }
  const text = await toText(response, type, kind);
  const notes: string[] = [];
  if (response.truncated) {
    const declared = Number(response.headers['content-length']);
    const of = Number.isFinite(declared) && declared > maxBytes ? ` of ${formatBytes(declared)}` : '';
    notes.push(`Too large: only the first ${formatBytes(maxBytes)}${of} were downloaded, so the end of the page is missing.`);
  }
  if (text.trim() === '') notes.push(kind === 'html' ? 'The page has no readable text (it may build its content with scripts, which only the browser tool runs).' : 'The body is empty.');
  return {
    finalUrl: response.url.href,
    status: response.status,
    mediaType: type.mediaType,
    text: text.slice(0, maxKeptChars),
    totalChars: text.length,
    notes,
  };
}

async function toText(response: HttpResponse, type: ReturnType<typeof parseContentType>, kind: ContentKind): Promise<string> {
  const decoded = decodeBody(response.body, type, kind);
  if (kind !== 'html') return decoded;
  // The HTML converter (mdream) loads with the first page, not with every gateway's tools.
  const { htmlToMarkdown } = await import('./html-to-markdown.ts');
  return htmlToMarkdown(decoded, response.url);
}

/** The page from `offset` as the model gets it, or why that part cannot be read. */
function shown(page: CachedPage, offset: number, maxChars: number, cachedAgeMs?: number): ToolOutput {
  if (offset > 0 && offset >= page.totalChars) return errorResult(`offset ${offset} is past the end of ${page.finalUrl} (${page.totalChars} characters)`);
  if (offset > 0 && offset >= page.text.length) return errorResult(`only the first ${page.text.length} characters of ${page.finalUrl} are kept for reading on; offset ${offset} is past them`);
  return { content: render(page, offset, maxChars, cachedAgeMs) };
}

/**
 * The header line, any notes, the text from `offset` up to `maxChars` and, when cut, how much was
 * left out and the offset to read on from.
 */
function render(page: CachedPage, offset: number, maxChars: number, cachedAgeMs?: number): string {
  const fromCache = cachedAgeMs === undefined ? '' : `, from this conversation's cache: fetched ${formatAge(cachedAgeMs)} ago`;
  const part = offset > 0 ? `, from character ${offset}` : '';
  const header = [`Fetched ${page.finalUrl} (${page.status}, ${page.mediaType}, ${page.totalChars} characters${part}${fromCache})`, ...page.notes].join('\n');
  // Room for the header and the marker, so the whole stays within what the engine passes on whole.
  const room = Math.max(0, Math.min(maxChars, maxOutputChars - header.length - 200));
  const text = offset > 0 ? page.text.slice(offset) : page.text;
  if (page.totalChars - offset <= room) return `${header}\n\n${text}`;
  const shown = cutAt(text, room);
  const end = offset + shown.length;
  const left = page.totalChars - end;
  const more = maxChars < maxCharsLimit ? `; a larger max_chars (at most ${maxCharsLimit}) shows more at once` : '';
  const onward = end < page.text.length ? `; offset=${end} reads on` : '';
  return `${header}\n\n${shown}\n\n[... cut: ${left} more characters${onward}${more} ...]`;
}

/** The first `length` characters, not splitting a surrogate pair, ending at a line break when one is near. */
function cutAt(text: string, length: number): string {
  let end = Math.min(length, text.length);
  if (end > 0 && end < text.length && text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff) end--;
  const lineEnd = text.lastIndexOf('\n', end);
  if (lineEnd > end - 500 && lineEnd > 0) end = lineEnd;
  return text.slice(0, end);
}

function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function sizeOf(response: HttpResponse): string {
  const declared = Number(response.headers['content-length']);
  if (response.headers['content-length'] !== undefined && Number.isFinite(declared)) return formatBytes(declared);
  if (response.body.length === 0) return 'size not given';
  return response.truncated ? `more than ${formatBytes(response.body.length)}` : formatBytes(response.body.length);
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${bytes} bytes`;
}

function formatAge(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
