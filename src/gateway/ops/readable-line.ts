/**
 * A log line for people at a terminal: `14:03:07 INFO  telegram telegram:dm:42 turn.end
 * profile=default status=ok durationMs=1.2s tokens=1,200in/630out costUsd=$0.0041`. Made from
 * the JSON line pino wrote, so both formats say the same.
 */

/** Fields shown in the line's head, not again among the rest. */
const placed = new Set(['time', 'level', 'event', 'msg', 'platform', 'conversation', 'turn']);

/** The readable form of one JSON log line (a line that is not JSON is returned as it is). */
export function readableLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof record.time === 'string' ? record.time.slice(11, 19) : '';
  const level = String(record.level ?? '').toUpperCase().padEnd(5);
  const head = [time, level, record.platform, record.conversation].filter((part) => typeof part === 'string' && part !== '');
  const message = record.msg !== record.event && typeof record.msg === 'string' ? `${String(record.event)}: ${record.msg}` : String(record.event ?? record.msg ?? '');
  const rest = Object.entries(record)
    .filter(([key, value]) => !placed.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${formatValue(key, value)}`);
  if (typeof record.turn === 'string') rest.push(`turn=${record.turn}`);
  return `${[...head, message, ...rest].join(' ')}\n`;
}

function formatValue(key: string, value: unknown): string {
  if (typeof value === 'number') {
    if (key === 'costUsd') return `$${value.toFixed(4)}`;
    if (key.endsWith('Ms')) return value >= 1000 ? `${(value / 1000).toFixed(1)}s` : `${Math.round(value)}ms`;
    return value.toLocaleString('en-US');
  }
  if (key === 'tokens' && typeof value === 'object' && value !== null) {
    const { input = 0, output = 0 } = value as { input?: number; output?: number };
    return `${input.toLocaleString('en-US')}in/${output.toLocaleString('en-US')}out`;
  }
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}
