/**
 * bolt's and the WebClient's logger, writing to the adapter's `log` with every line scrubbed of
 * tokens and prefixed `slack:`. Below `warn` nothing is written: bolt's debug lines dump whole
 * request bodies.
 */
import { LogLevel, type Logger } from '@slack/bolt';
import type { Scrub } from './slack-errors.ts';

const order: LogLevel[] = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];

function text(parts: unknown[]): string {
  return parts.map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part) ?? String(part))).join(' ');
}

/** A bolt {@link Logger} over `log`. */
export function createBoltLogger(log: (line: string) => void, scrub: Scrub): Logger {
  let level = LogLevel.WARN;
  let name = 'bolt';
  const write = (at: LogLevel, parts: unknown[]) => {
    if (order.indexOf(at) >= order.indexOf(level)) log(scrub(`slack: ${name} ${at}: ${text(parts)}`));
  };
  return {
    debug: (...parts: unknown[]) => write(LogLevel.DEBUG, parts),
    info: (...parts: unknown[]) => write(LogLevel.INFO, parts),
    warn: (...parts: unknown[]) => write(LogLevel.WARN, parts),
    error: (...parts: unknown[]) => write(LogLevel.ERROR, parts),
    setLevel: (next) => {
      // bolt sets INFO on its logger by default; the adapter keeps WARN as the floor.
      level = order.indexOf(next) > order.indexOf(LogLevel.WARN) ? next : LogLevel.WARN;
    },
    getLevel: () => level,
    setName: (next) => {
      name = next;
    },
  };
}
