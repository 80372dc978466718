/**
 * The corpus of real platform payloads (`test/fixtures/real-payloads/`): payloads written by
 * others (library fixtures, recorded gateway frames, the platforms' docs; each sample names its
 * source), for the tests that feed them through the real adapters. Each sample says what the
 * gateway should do with it (`expect`) and where an answer goes (`where`); its `deliver` payloads
 * hold `%%PLACEHOLDERS%%` that {@link fill} replaces with a test's own ids and times.
 *
 * What each expectation means: `reply` exactly one answer in the right place; `media` non-text
 * media, one answer (handled, or a short notice), never silence; `soft` zero or one answer, never
 * elsewhere; `silent` no answer and nothing to the model; `notice` (a press on a button the bot
 * never sent or no longer has) nothing to the model, the press acknowledged, at most one short
 * notice; `command` one answer to a slash command; `interaction` one answer through the
 * interaction; `challenge` Slack's url_verification echoed; `business` no answer, or one
 * carrying the business connection.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What a sample should get (MANIFEST.md defines each). */
export type Expectation = 'reply' | 'media' | 'soft' | 'silent' | 'notice' | 'command' | 'interaction' | 'challenge' | 'business';

/** One recorded payload and what it should get. */
export interface Sample {
  name: string;
  expect: Expectation;
  /** Where an answer goes: `chat` (Telegram) or `channel` (Slack, Discord), and a thread; placeholders unfilled. */
  where: Record<string, unknown>;
  /** What a test sends, in order, placeholders unfilled. */
  deliver: unknown[];
  /** Where the payload came from: a repository, commit and path, or a docs page. */
  source: Record<string, unknown>;
}

/** Where the corpus is kept. */
const corpusFolder = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-payloads');

/** The samples of one platform, in the corpus's order. */
export function samplesOf(platform: 'telegram' | 'slack' | 'discord'): Sample[] {
  const parsed = JSON.parse(readFileSync(path.join(corpusFolder, `${platform}.json`), 'utf8')) as { platform: string; samples: Sample[] };
  if (parsed.platform !== platform || !Array.isArray(parsed.samples)) throw new Error(`${platform}.json is not a corpus of ${platform} samples`);
  return parsed.samples;
}

/**
 * The values of a test's placeholders: each name (without the `%%`) maps to a value, or to a
 * function called once per occurrence (fresh ids). `AGO:600` style names are looked up whole.
 */
export type Placeholders = Record<string, unknown | (() => unknown)> & {
  /** Values of names that carry an argument (`LENAT:/report`), asked with the whole name; undefined: unknown. */
  '*'?: (name: string) => unknown;
};

/**
 * `value` with every placeholder replaced: a string that is one placeholder becomes its value
 * (a number stays a number); one inside a longer string is replaced as text. An unknown
 * placeholder throws, so a corpus change cannot pass unnoticed.
 */
export function fill<T>(value: T, placeholders: Placeholders): T {
  const lookup = (name: string): unknown => {
    if (!(name in placeholders)) {
      const value = placeholders['*']?.(name);
      if (value === undefined) throw new Error(`no value for the placeholder %%${name}%%`);
      return value;
    }
    const found = placeholders[name];
    return typeof found === 'function' ? (found as () => unknown)() : found;
  };
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = /^%%([^%]+)%%$/.exec(node);
      if (whole) return lookup(whole[1]!);
      return node.replace(/%%([^%]+)%%/g, (_match, name: string) => String(lookup(name)));
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, walk(inner)]));
    return node;
  };
  return walk(value) as T;
}

/** Every object below `node` (itself included) that has `key`, depth first. */
export function objectsWith(node: unknown, key: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (inner: unknown) => {
    if (Array.isArray(inner)) inner.forEach(walk);
    else if (inner !== null && typeof inner === 'object') {
      if (key in inner) found.push(inner as Record<string, unknown>);
      Object.values(inner).forEach(walk);
    }
  };
  walk(node);
  return found;
}
