/**
 * One sample of the corpus of real platform payloads (`test/fixtures/real-payloads/`, read by
 * `test/corpus/real-payloads.ts`), by name, filled in for a test: the `%%PLACEHOLDERS%%` of its
 * `deliver` become the test's ids (given by the test) and fresh times, message ids and event ids
 * (made here, the same within one call for the same placeholder).
 */
import { fill, samplesOf, type Expectation, type Sample } from '../corpus/real-payloads.ts';

/** What a sample's row says should happen. */
export type SampleExpectation = Expectation;

/** One sample of the corpus. */
export type RealPayloadSample = Sample;

/** The sample `name` of `platform`'s file (`telegram`, `slack`, `discord`); throws when there is none. */
export function realPayload(platform: 'telegram' | 'slack' | 'discord', name: string): RealPayloadSample {
  const sample = samplesOf(platform).find((candidate) => candidate.name === name);
  if (!sample) throw new Error(`no ${platform} sample named ${name}`);
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
  return fill(sample.deliver, { '*': fresh }) as unknown[];
}
