/**
 * What the log and the metrics add to a turn (issue 19's target: at most 0.1 ms at the median).
 * A turn reports five events: the message taken, the turn's start, the model call's usage, the
 * turn's end with tokens, cost and time, the reply delivered. Here each sample is one turn's five
 * events through the gateway's event stream, as `operator start` wires it: the pino log writing
 * JSON lines to a file (synchronously, as it writes to stderr; scrubbed of the environment's
 * secrets) and the Prometheus metrics counting them. The floor, measured alternately in the same
 * run, is the same five events with nobody listening (what a gateway does without either). A
 * scrape of `/metrics` is timed too: the text for the metrics of 1,000 turns.
 */
import { openSync, closeSync, writeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OpsEvents, type OpsEvent } from '../src/gateway/ops/ops-events.ts';
import { createOpsLog } from '../src/gateway/ops/ops-log.ts';
import { OpsMetrics } from '../src/gateway/ops/ops-metrics.ts';
import { createScrubber } from '../src/gateway/ops/secret-scrubber.ts';
import { benchHome, elapsedMs, median, quantile, type BenchResult } from './lib.ts';

const TURNS = 20_000;
const WARMUP = 2_000;
const SCRAPES = 50;

/** The five events of one turn in conversation `chat`. */
function turnEvents(chat: number): OpsEvent[] {
  const place = { platform: 'telegram', conversation: `telegram:dm:${chat}`, turn: `telegram:${chat}:${chat * 7}#0` };
  const tokens = { input: 1830, output: 212, cacheRead: 1500, cacheWrite: 0 };
  return [
    { type: 'message.accepted', ...place, scope: 'dm' },
    { type: 'turn.start', ...place, profile: 'default', scheduled: false },
    { type: 'model.usage', ...place, profile: 'default', provider: 'anthropic', model: 'claude-sonnet-4-6', tokens, costUsd: 0.0093, kind: 'turn' },
    { type: 'turn.end', ...place, profile: 'default', status: 'ok', durationMs: 1234, tokens, costUsd: 0.0093 },
    { type: 'reply.delivered', ...place, attempts: 1 },
  ];
}

export default async function run(): Promise<BenchResult[]> {
  const home = benchHome('operator-bench-ops-');
  const file = join(home, 'gateway.log');
  const fd = openSync(file, 'w');
  try {
    // An environment like a deployment's: a few secrets the log must scrub from every line.
    const env = { TELEGRAM_BOT_TOKEN: '123456789:AAHbenchtokenbenchtokenbenchtoken', ANTHROPIC_API_KEY: 'sk-ant-api03-benchkeybenchkeybenchkey', SLACK_SIGNING_SECRET: 'benchsigningsecret01', PATH: process.env.PATH };
    const on = new OpsEvents();
    const log = createOpsLog({ env, scrub: createScrubber(env), output: { isTTY: false, write: (text: string) => writeSync(fd, text) } });
    // As a gateway runs once ready: through pino.
    await log.load();
    on.subscribe(log.listener);
    const metrics = new OpsMetrics({ running: () => 1, queued: () => 0, conversations: () => 50 });
    await metrics.load();
    on.subscribe(metrics.listener);
    const off = new OpsEvents();
    const events = Array.from({ length: 50 }, (_, chat) => turnEvents(1000 + chat));

    const onSamples: number[] = [];
    const offSamples: number[] = [];
    for (let i = 0; i < WARMUP + TURNS; i++) {
      const turn = events[i % events.length]!;
      // Alternating, so both see the same machine noise.
      for (const [ops, samples] of i % 2 === 0 ? ([[on, onSamples], [off, offSamples]] as const) : ([[off, offSamples], [on, onSamples]] as const)) {
        const start = process.hrtime.bigint();
        for (const event of turn) ops.emit(event);
        const took = elapsedMs(start);
        if (i >= WARMUP) samples.push(took);
      }
    }
    const added = (q: number) => quantile(onSamples, q) - quantile(offSamples, q);

    const scrapes: number[] = [];
    for (let i = 0; i < SCRAPES; i++) {
      const start = process.hrtime.bigint();
      await metrics.render();
      scrapes.push(elapsedMs(start));
    }
    return [
      { name: 'log + metrics added per turn (p50)', value: added(0.5), unit: 'ms', target: '<= 0.1 ms', pass: added(0.5) <= 0.1, note: `5 events: ${median(onSamples).toFixed(4)} ms on, ${median(offSamples).toFixed(4)} ms with nobody listening` },
      { name: 'log + metrics added per turn (p99)', value: added(0.99), unit: 'ms' },
      { name: 'GET /metrics text (median)', value: median(scrapes), unit: 'ms', note: `after ${(WARMUP + TURNS).toLocaleString('en-US')} turns' events` },
    ];
  } finally {
    closeSync(fd);
    rmSync(home, { recursive: true, force: true });
  }
}
