/**
 * The gateway's log: one line per event of `ops-events.ts`, through pino. JSON lines (time,
 * level, event, platform, conversation, turn and the event's own fields) when the output is not
 * a terminal or `OPERATOR_LOG_FORMAT=json`; short readable lines on a terminal or with
 * `OPERATOR_LOG_FORMAT=pretty`. `OPERATOR_LOG_LEVEL` (debug, info, warn, error, silent; default
 * info) says how much. Every line is scrubbed of secrets just before it is written.
 */
import type { DestinationStream, Logger } from 'pino';
import { levelOf, type OpsListener, type OpsRecord } from './ops-events.ts';
import { readableLine } from './readable-line.ts';
import type { Scrubber } from './secret-scrubber.ts';

/** The levels `OPERATOR_LOG_LEVEL` takes. */
export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** How lines are written. */
export type LogFormat = 'json' | 'pretty';

/** Where lines go: stderr by default (stdout carries the start-up banner and command output). */
export interface LogOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What the environment asks of the log, with a note for each value that is not understood. */
export function logSettings(env: NodeJS.ProcessEnv, output: LogOutput): { level: LogLevel; format: LogFormat; problems: string[] } {
  const problems: string[] = [];
  const levelText = env.OPERATOR_LOG_LEVEL?.trim().toLowerCase();
  let level: LogLevel = 'info';
  if (levelText) {
    if ((logLevels as readonly string[]).includes(levelText)) level = levelText as LogLevel;
    else problems.push(`OPERATOR_LOG_LEVEL="${env.OPERATOR_LOG_LEVEL}" is not one of ${logLevels.join(', ')}; logging at info`);
  }
  const formatText = env.OPERATOR_LOG_FORMAT?.trim().toLowerCase();
  let format: LogFormat = output.isTTY ? 'pretty' : 'json';
  if (formatText) {
    if (formatText === 'json' || formatText === 'pretty') format = formatText;
    else problems.push(`OPERATOR_LOG_FORMAT="${env.OPERATOR_LOG_FORMAT}" is not json or pretty; writing ${format}`);
  }
  return { level, format, problems };
}

/** The log: a listener for the gateway's events, and the loading of its logger. */
export interface OpsLog {
  /** Writes an event (subscribe it to `OpsEvents`). */
  listener: OpsListener;
  level: LogLevel;
  format: LogFormat;
  /**
   * Loads pino (about 30 ms of the main thread, kept out of start-up); until then lines are
   * written the same way without it. Later calls share the first.
   */
  load(): Promise<void>;
}

/** pino's numbers for the levels, for deciding before it has loaded. */
const rank: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50, silent: Infinity };

/**
 * A log writing to `output` (stderr by default), as the environment says. Lines are written
 * synchronously: a crash right after an event still leaves its line. Until `load()` has brought
 * pino in, each line is the one pino would write (the same keys in the same order), so an early
 * line is never lost nor different.
 */
export function createOpsLog(options: { env: NodeJS.ProcessEnv; scrub: Scrubber; output?: LogOutput }): OpsLog {
  const output = options.output ?? process.stderr;
  const { level, format, problems } = logSettings(options.env, output);
  const { scrub } = options;
  const destination: DestinationStream = {
    write(line: string) {
      const clean = scrub(line);
      output.write(format === 'json' ? clean : readableLine(clean));
    },
  };
  let logger: Logger | undefined;
  let loading: Promise<void> | undefined;
  const write = (recordLevel: Exclude<LogLevel, 'silent'>, fields: Record<string, unknown>, msg: string) => {
    if (logger) return logger[recordLevel](fields, msg);
    destination.write(`${JSON.stringify({ level: recordLevel, time: new Date().toISOString(), ...fields, msg })}\n`);
  };
  const listener = (record: OpsRecord) => {
    const { at: _at, type, ...fields } = record;
    const recordLevel = levelOf(record);
    if (rank[recordLevel] < rank[level]) return;
    const text = 'text' in fields && typeof fields.text === 'string' ? fields.text : undefined;
    if (text !== undefined) delete (fields as { text?: string }).text;
    if ('level' in fields) delete (fields as { level?: string }).level;
    write(recordLevel, { event: type, ...fields }, text ?? type);
  };
  const load = () => {
    loading ??= import('pino').then(({ pino }) => {
      logger = pino(
        {
          level,
          base: undefined,
          messageKey: 'msg',
          timestamp: () => `,"time":"${new Date().toISOString()}"`,
          formatters: { level: (label) => ({ level: label }) },
        },
        destination,
      );
    });
    return loading;
  };
  for (const problem of problems) listener({ type: 'notice', level: 'warn', text: problem, at: Date.now() });
  return { listener, level, format, load };
}
