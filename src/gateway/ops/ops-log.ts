/**
 * The gateway's log: one line per event of `ops-events.ts`, through pino. JSON lines (time,
 * level, event, platform, conversation, turn and the event's own fields) when the output is not
 * a terminal or `OPERATOR_LOG_FORMAT=json`; short readable lines on a terminal or with
 * `OPERATOR_LOG_FORMAT=pretty`. `OPERATOR_LOG_LEVEL` (debug, info, warn, error, silent; default
 * info) says how much. Every line is scrubbed of secrets just before it is written.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
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

/** The log: a listener for the gateway's events, and `line` for reports that are not events. */
export interface OpsLog {
  /** Writes an event (subscribe it to `OpsEvents`). */
  listener: OpsListener;
  level: LogLevel;
  format: LogFormat;
}

/**
 * A log writing to `output` (stderr by default), as the environment says. Lines are written
 * synchronously: a crash right after an event still leaves its line.
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
  const logger: Logger = pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  const listener = (record: OpsRecord) => {
    const { at: _at, type, ...fields } = record;
    const recordLevel = levelOf(record);
    if (!logger.isLevelEnabled(recordLevel)) return;
    const text = 'text' in fields && typeof fields.text === 'string' ? fields.text : undefined;
    if (text !== undefined) delete (fields as { text?: string }).text;
    if ('level' in fields) delete (fields as { level?: string }).level;
    logger[recordLevel]({ event: type, ...fields }, text ?? type);
  };
  for (const problem of problems) listener({ type: 'notice', level: 'warn', text: problem, at: Date.now() });
  return { listener, level, format };
}
