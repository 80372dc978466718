/**
 * A simulated provider prompt cache, so tests can measure how much of operator's input a real
 * provider would serve from its cache. Tokens are estimated as `fake-prompt-parts.ts` says.
 *
 * Anthropic (explicit breakpoints): the prompt is tools -> system -> messages, split into blocks.
 * A block with `cache_control` is a breakpoint; the prefix ending there is identified by the
 * exact canonical text of every block up to it (plus the model, and `tool_choice`/`thinking`
 * for blocks of messages), so any changed byte earlier invalidates it. On a request, each
 * breakpoint looks for a stored prefix ending at its own block or one of the 20 blocks before
 * it; the longest found is the cache read. The tokens from there to the last breakpoint are the
 * cache write, and every breakpoint prefix of at least `minTokens` is stored (or refreshed) for
 * 5 minutes (1 hour with `ttl: '1h'`); a read refreshes its entry. The rest is plain input.
 *
 * OpenAI (automatic): the prompt is tools -> messages. The cached tokens are the longest prefix
 * shared with an earlier request of the same model (whole parts, then 4-character tokens of the
 * first differing part), counted only from `minTokens` on and then in 128-token steps, and only
 * when the prompt has at least `minTokens` tokens. Prompts are kept for 5 minutes after last use.
 * OpenAI reports no cache writes.
 */
import { createHash } from 'node:crypto';
import { anthropicPrompt, charactersPerToken, fiveMinutesMs, openaiPrompt, type AnthropicPrompt, type OpenAIPrompt, type PromptPart } from './fake-prompt-parts.ts';
import type { CacheStats, CacheUsage, MessageReply, PromptCacheOptions, Protocol, ReplySpec } from './fake-model-types.ts';

/** Default shortest cacheable prefix, in tokens. */
export const defaultMinCacheTokens = 1024;

/** How many blocks before a breakpoint Anthropic looks for an earlier cache entry. */
export const anthropicLookbackBlocks = 20;

/** OpenAI counts cached tokens in steps of this size beyond the minimum. */
export const openaiCacheStep = 128;

/** The cache state of one fake server. */
export interface PromptCache {
  /** Measures one request body and updates the cache as the provider would. */
  measure(protocol: Protocol, body: unknown): CacheUsage | undefined;
  /** Totals since creation or the last reset. */
  stats(): CacheStats;
  /** Forgets every entry and zeroes the totals. */
  reset(): void;
}

interface StoredOpenAIPrompt {
  prompt: OpenAIPrompt;
  expiresAt: number;
}

/** Creates an empty simulated cache. */
export function createPromptCache(options: PromptCacheOptions = {}): PromptCache {
  const minTokens = options.minTokens ?? defaultMinCacheTokens;
  const now = options.now ?? Date.now;
  const anthropicEntries = new Map<string, { expiresAt: number; ttlMs: number }>();
  let openaiEntries: StoredOpenAIPrompt[] = [];
  const totals = { requests: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

  function measureAnthropic(prompt: AnthropicPrompt, time: number): CacheUsage {
    for (const [id, entry] of anthropicEntries) if (entry.expiresAt <= time) anthropicEntries.delete(id);
    const ids = prefixIds(prompt);
    const ends = prefixTokens(prompt.parts);
    const breakpoints = prompt.parts.flatMap((part, index) => (part.breakpointTtlMs === undefined ? [] : [index]));
    let read = 0;
    let readId: string | undefined;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - anthropicLookbackBlocks); index--) {
        const id = ids[index] ?? '';
        if (!anthropicEntries.has(id)) continue;
        if ((ends[index] ?? 0) > read) [read, readId] = [ends[index] ?? 0, id];
        break;
      }
    }
    const last = breakpoints.at(-1);
    const cachedEnd = last === undefined ? 0 : (ends[last] ?? 0);
    const write = cachedEnd >= minTokens ? cachedEnd - read : 0;
    const readEntry = readId === undefined ? undefined : anthropicEntries.get(readId);
    if (readEntry !== undefined) readEntry.expiresAt = time + readEntry.ttlMs;
    for (const breakpoint of breakpoints) {
      const ttlMs = prompt.parts[breakpoint]?.breakpointTtlMs ?? fiveMinutesMs;
      const id = ids[breakpoint] ?? '';
      const expiresAt = Math.max(time + ttlMs, anthropicEntries.get(id)?.expiresAt ?? 0);
      if ((ends[breakpoint] ?? 0) >= minTokens) anthropicEntries.set(id, { expiresAt, ttlMs });
    }
    return { inputTokens: ends.at(-1) ?? 0, cacheReadTokens: read, cacheWriteTokens: write };
  }

  function measureOpenAI(prompt: OpenAIPrompt, time: number): CacheUsage {
    openaiEntries = openaiEntries.filter((entry) => entry.expiresAt > time);
    const total = prefixTokens(prompt.parts).at(-1) ?? 0;
    let shared = 0;
    let best: StoredOpenAIPrompt | undefined;
    const kept: StoredOpenAIPrompt[] = [];
    for (const entry of openaiEntries) {
      if (entry.prompt.model !== prompt.model) {
        kept.push(entry);
        continue;
      }
      const common = sharedPrefix(entry.prompt.parts, prompt.parts);
      if (common.tokens > shared) [shared, best] = [common.tokens, entry];
      // A stored prompt the new one extends can never share more than the new one: drop it.
      if (common.wholeParts < entry.prompt.parts.length) kept.push(entry);
    }
    if (best !== undefined) best.expiresAt = time + fiveMinutesMs;
    kept.push({ prompt, expiresAt: time + fiveMinutesMs });
    openaiEntries = kept;
    const cached =
      total >= minTokens && shared >= minTokens
        ? minTokens + Math.floor((shared - minTokens) / openaiCacheStep) * openaiCacheStep
        : 0;
    return { inputTokens: total, cacheReadTokens: cached, cacheWriteTokens: 0 };
  }

  return {
    measure(protocol, body) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
      const json = body as Record<string, unknown>;
      const time = now();
      const usage = protocol === 'anthropic' ? measureAnthropic(anthropicPrompt(json), time) : measureOpenAI(openaiPrompt(json), time);
      totals.requests++;
      totals.inputTokens += usage.inputTokens;
      totals.cacheReadTokens += usage.cacheReadTokens;
      totals.cacheWriteTokens += usage.cacheWriteTokens;
      return usage;
    },
    stats: () => ({ ...totals, readFraction: totals.inputTokens === 0 ? 0 : totals.cacheReadTokens / totals.inputTokens }),
    reset() {
      anthropicEntries.clear();
      openaiEntries = [];
      Object.assign(totals, { requests: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    },
  };
}

/**
 * The reply with its input usage taken from the simulation, unless the script set any of
 * `input`, `cacheRead` or `cacheWrite` itself (then the scripted numbers win). Output usage
 * always stays as scripted.
 */
export function withCacheUsage(reply: ReplySpec, cache: CacheUsage): ReplySpec {
  if ('error' in reply || 'streamError' in reply) return reply;
  const scripted = reply.usage ?? {};
  if (scripted.input !== undefined || scripted.cacheRead !== undefined || scripted.cacheWrite !== undefined) return reply;
  const usage: NonNullable<MessageReply['usage']> = {
    ...scripted,
    input: cache.inputTokens - cache.cacheReadTokens - cache.cacheWriteTokens,
    cacheRead: cache.cacheReadTokens,
    cacheWrite: cache.cacheWriteTokens,
  };
  return { ...reply, usage };
}

/** Running token totals: entry `i` is the size of the prefix ending with part `i`. */
function prefixTokens(parts: PromptPart[]): number[] {
  let total = 0;
  return parts.map((part) => (total += part.tokens));
}

/** Identity of each Anthropic prefix: a hash over the model and every part up to it. */
function prefixIds(prompt: AnthropicPrompt): string[] {
  const hash = createHash('sha256').update(prompt.model);
  return prompt.parts.map((part, index) => {
    if (index === prompt.messagesStart) hash.update(`\0settings\0${prompt.messageSettings}`);
    hash.update(`\0${part.label}\0${part.text}`);
    return hash.copy().digest('hex');
  });
}

/** Tokens two OpenAI prompts share from the start, and how many whole parts they share. */
function sharedPrefix(previous: PromptPart[], current: PromptPart[]): { tokens: number; wholeParts: number } {
  let tokens = 0;
  for (const [index, part] of current.entries()) {
    const other = previous[index];
    if (other === undefined || other.label !== part.label) return { tokens, wholeParts: index };
    if (other.text !== part.text) {
      let same = 0;
      while (same < part.text.length && part.text[same] === other.text[same]) same++;
      return { tokens: tokens + Math.floor(same / charactersPerToken), wholeParts: index };
    }
    tokens += part.tokens;
  }
  return { tokens, wholeParts: current.length };
}
