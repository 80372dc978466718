/**
 * The corpus of real platform payloads (../shared/real-payloads: library fixtures, recorded
 * gateway frames, the platforms' docs examples), read by name and filled in for a test: the
 * `%%PLACEHOLDERS%%` of a sample's `deliver` become the test's ids (given by the test) and fresh
 * times, message ids and event ids (made here). A placeholder that is a whole JSON string takes
 * the value's own type (Telegram's ids are numbers); inside a longer string it is put in as text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What a sample's row says should happen (see the corpus's MANIFEST.md). */
export type SampleExpectation = 'reply' | 'media' | 'soft' | 'silent' | 'notice' | 'command' | 'interaction' | 'challenge' | 'business';

/** One sample of the corpus. */
export interface RealPayloadSample {
  name: string;
  expect: SampleExpectation;
  /** What the sample's payloads are, with placeholders, in delivery order. */
  deliver: unknown[];
}

/** Where the corpus is: `OPERATOR_REAL_PAYLOADS`, else `../shared/real-payloads` beside the checkout. */
export const realPayloadsDir = process.env.OPERATOR_REAL_PAYLOADS ?? fileURLToPath(new URL('../../../shared/real-payloads/', import.meta.url));

const loaded = new Map<string, RealPayloadSample[]>();

/** The sample `name` of `platform`'s file (`telegram`, `slack`, `discord`); throws when there is none. */
export function realPayload(platform: 'telegram' | 'slack' | 'discord', name: string): RealPayloadSample {
  let samples = loaded.get(platform);
  if (!samples) {
    samples = (JSON.parse(readFileSync(`${realPayloadsDir}/${platform}.json`, 'utf8')) as { samples: RealPayloadSample[] }).samples;
    loaded.set(platform, samples);
  }
  const sample = samples.find((candidate) => candidate.name === name);
  if (!sample) throw new Error(`no ${platform} sample named ${name} in ${realPayloadsDir}`);
  return sample;
}

let counter = 0;

/** A Discord snowflake of now (ms since Discord's epoch, shifted past the worker and sequence bits). */
function snowflake(): string {
  counter += 1;
  return String(((BigInt(Date.now()) - 1_420_070_400_000n) << 22n) + BigInt(counter % 4096));
}

/** A Slack `ts` `seconds` ago: seconds since the epoch with six digits after the dot, unique in this process. */
function slackTs(secondsAgo: number): string {
  counter += 1;
  return `${Math.floor(Date.now() / 1000) - secondsAgo}.${String(counter % 1_000_000).padStart(6, '0')}`;
}

/**
 * `sample`'s payloads with every placeholder filled: `ids` gives the test's own (`USER`, `GROUP`,
 * `SLACK_BOT`, `C_OPEN`, `CH_OPEN`, ...), the rest (`NOW`, `ISO_NOW`, `AGO:n`, `TS:x`,
 * `TSNODOT:x`, `SNOW`, `SNOW:x`, `MSGID`, `EVID`) are made fresh, the same within one call for the
 * same placeholder. Throws on a placeholder it cannot fill, naming it.
 */
export function fillPayloads(sample: RealPayloadSample, ids: Readonly<Record<string, string | number>>): unknown[] {
  const made = new Map<string, string | number>();
  const nowSeconds = Math.floor(Date.now() / 1000);
  const fresh = (key: string): string | number => {
    if (key in ids) return ids[key]!;
    const known = made.get(key);
    if (known !== undefined) return known;
    const [kind, detail] = key.split(':') as [string, string | undefined];
    let value: string | number;
    if (kind === 'NOW') value = nowSeconds;
    else if (kind === 'ISO_NOW') value = new Date().toISOString();
    else if (kind === 'AGO') value = nowSeconds - Number(detail);
    else if (kind === 'TS') value = slackTs(detail === 'self' ? 0 : detail === 'parent' ? 60 : 3_600);
    else if (kind === 'TSNODOT') value = String(fresh(`TS:${detail}`)).replace('.', '');
    else if (kind === 'SNOW') value = snowflake();
    else if (kind === 'MSGID') value = 100_000 + (counter += 1);
    else if (kind === 'EVID') value = `Ev${Date.now().toString(36)}${(counter += 1).toString(36)}`.toUpperCase();
    else throw new Error(`sample ${sample.name}: no value for %%${key}%%`);
    made.set(key, value);
    return value;
  };
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = /^%%([^%]+)%%$/.exec(value);
      if (whole) return fresh(whole[1]!);
      return value.replace(/%%([^%]+)%%/g, (_match, key: string) => String(fresh(key)));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
    return value;
  };
  return sample.deliver.map(fill);
}
