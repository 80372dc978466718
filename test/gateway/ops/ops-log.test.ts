/**
 * The log as written: JSON lines with time, level, event and place; readable lines on a terminal;
 * the level and format the environment asks for; every secret of the environment taken out in
 * each encoding it travels in.
 */
import { describe, expect, it } from 'vitest';
import { OpsEvents } from '../../../src/gateway/ops/ops-events.ts';
import { createOpsLog } from '../../../src/gateway/ops/ops-log.ts';
import { createScrubber, redacted } from '../../../src/gateway/ops/secret-scrubber.ts';

/** A log writing into an array. */
function capture(env: NodeJS.ProcessEnv, isTTY = false, extra: string[] = []) {
  const lines: string[] = [];
  const ops = new OpsEvents();
  const log = createOpsLog({ env, scrub: createScrubber(env, extra), output: { isTTY, write: (text: string) => lines.push(text) } });
  ops.subscribe(log.listener);
  return { ops, lines, log };
}

const turnEnd = {
  type: 'turn.end',
  platform: 'telegram',
  conversation: 'telegram:dm:42',
  turn: 'telegram:42:7#0',
  profile: 'default',
  status: 'ok',
  durationMs: 1234,
  tokens: { input: 1200, output: 630, cacheRead: 0, cacheWrite: 0 },
  costUsd: 0.0041,
} as const;

describe('the operations log', () => {
  it('writes one JSON line per event with time, level, event, platform, conversation and turn', () => {
    const { ops, lines, log } = capture({});
    expect([log.level, log.format]).toEqual(['info', 'json']);
    ops.emit(turnEnd);
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(record).toMatchObject({ level: 'info', event: 'turn.end', platform: 'telegram', conversation: 'telegram:dm:42', turn: 'telegram:42:7#0', durationMs: 1234, costUsd: 0.0041 });
    expect(record.tokens).toEqual({ input: 1200, output: 630, cacheRead: 0, cacheWrite: 0 });
    expect(new Date(record.time).getTime()).toBeGreaterThan(0);
  });

  it('writes the same line before pino has loaded as after (it loads once the gateway is ready)', async () => {
    const { ops, lines, log } = capture({});
    ops.emit(turnEnd);
    ops.emit({ type: 'notice', level: 'warn', text: 'a "quoted" note' });
    await log.load();
    ops.emit(turnEnd);
    ops.emit({ type: 'notice', level: 'warn', text: 'a "quoted" note' });
    const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
    expect(lines).toHaveLength(4);
    expect(withoutTime(lines[2]!)).toBe(withoutTime(lines[0]!));
    expect(withoutTime(lines[3]!)).toBe(withoutTime(lines[1]!));
    expect(lines[1]!.endsWith('\n')).toBe(true);
  });

  it('writes readable lines on a terminal, and JSON there when asked', () => {
    const pretty = capture({}, true);
    pretty.ops.emit(turnEnd);
    expect(pretty.log.format).toBe('pretty');
    expect(pretty.lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}telegram telegram:dm:42 turn\.end profile=default status=ok durationMs=1\.2s tokens=1,200in\/630out costUsd=\$0\.0041 turn=telegram:42:7#0\n$/);
    const json = capture({ OPERATOR_LOG_FORMAT: 'json' }, true);
    json.ops.emit(turnEnd);
    expect(JSON.parse(json.lines[0]!).event).toBe('turn.end');
  });

  it('logs at the level asked for, and says so when the level or format is not understood', () => {
    const quiet = capture({ OPERATOR_LOG_LEVEL: 'warn' });
    quiet.ops.emit(turnEnd);
    quiet.ops.emit({ type: 'reply.failed', platform: 'slack', conversation: 'slack:C1', error: 'channel_not_found' });
    expect(quiet.lines.map((line) => JSON.parse(line).event)).toEqual(['reply.failed']);
    const chatty = capture({ OPERATOR_LOG_LEVEL: 'debug' });
    chatty.ops.emit({ type: 'model.usage', profile: 'default', provider: 'anthropic', model: 'claude-x', tokens: turnEnd.tokens, costUsd: 0.001, kind: 'review' });
    expect(JSON.parse(chatty.lines[0]!)).toMatchObject({ level: 'debug', event: 'model.usage', kind: 'review' });
    const wrong = capture({ OPERATOR_LOG_LEVEL: 'loud', OPERATOR_LOG_FORMAT: 'xml' });
    expect(wrong.log).toMatchObject({ level: 'info', format: 'json' });
    expect(wrong.lines.map((line) => JSON.parse(line).msg)).toEqual([
      'OPERATOR_LOG_LEVEL="loud" is not one of debug, info, warn, error, silent; logging at info',
      'OPERATOR_LOG_FORMAT="xml" is not json or pretty; writing json',
    ]);
    const silent = capture({ OPERATOR_LOG_LEVEL: 'silent' });
    silent.ops.emit({ type: 'store.failed', what: 'inbox', error: 'ENOSPC' });
    expect(silent.lines).toEqual([]);
  });

  it('never writes a secret of the environment or one it was given, in any encoding', () => {
    const token = '123456:AAH-bot_token/with+odd=chars';
    const key = 'sk-ant-api03-secretkeyvalue';
    const extra = 'admin-token-0123456789';
    const env = { TELEGRAM_BOT_TOKEN: token, ANTHROPIC_API_KEY: key, MY_SERVICE_PASSWORD: 'hunter2hunter2', HOME: '/home/someone' };
    for (const format of ['json', 'pretty']) {
      const { ops, lines } = capture({ ...env, OPERATOR_LOG_FORMAT: format }, false, [extra]);
      const basic = Buffer.from(`user:${key}`).toString('base64');
      const forms = [token, encodeURIComponent(token), Buffer.from(token).toString('base64'), Buffer.from(token).toString('base64url'), Buffer.from(key).toString('hex'), basic, extra, 'hunter2hunter2'];
      ops.emit({ type: 'notice', level: 'error', text: `request failed: ${forms.join(' | ')}` });
      ops.emit({ type: 'reply.failed', platform: 'telegram', error: `POST https://api.telegram.org/bot${token}/sendMessage: 502` });
      const text = lines.join('');
      expect(text).toContain(redacted);
      for (const secret of [token, key, extra, 'hunter2hunter2']) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(encodeURIComponent(secret));
        expect(text).not.toContain(Buffer.from(secret).toString('hex'));
        // The secret's own base64 characters, wherever it sat in the encoded text.
        expect(text).not.toContain(Buffer.from(secret).toString('base64').slice(0, 12));
      }
      expect(text).not.toContain(Buffer.from(`user:${key}`).toString('base64').slice(8, 28));
      // What is not secret stays readable.
      expect(text).toContain('/sendMessage: 502');
    }
  });
});
