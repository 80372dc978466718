/**
 * parseScheduleArgs: the arguments of `operator schedule list|add|rm|pause|resume` turned into the
 * request sent to the gateway, and the messages for arguments that make no request.
 */
import { describe, expect, it } from 'vitest';
import { parseScheduleArgs } from '../../src/cli/schedule-command.ts';

describe('parseScheduleArgs', () => {
  it('reads list', () => {
    expect(parseScheduleArgs(['list'])).toEqual({ request: { action: 'list' }, json: false });
  });

  it('reads list --json', () => {
    expect(parseScheduleArgs(['list', '--json'])).toEqual({ request: { action: 'list' }, json: true });
  });

  it('reads add with a conversation, a time and the rest of the words as the prompt', () => {
    expect(parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '20m', 'remind', 'me'])).toEqual({
      request: { action: 'add', to: 'telegram:1', in: '20m', prompt: 'remind me' },
      json: false,
    });
  });

  it('reads add with a pipeline to start, the words as its goal', () => {
    expect(parseScheduleArgs(['add', '--to', 'telegram:1', '--every', '1d', '--pipeline', 'task', 'tidy', 'the', 'docs'])).toEqual({
      request: { action: 'add', to: 'telegram:1', every: '1d', pipeline: 'task', prompt: 'tidy the docs' },
      json: false,
    });
  });

  it('takes the prompt as one quoted argument, trimmed', () => {
    expect(parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '20m', '  remind me  ']).request).toEqual({ action: 'add', to: 'telegram:1', in: '20m', prompt: 'remind me' });
  });

  it('refuses add without a time, or with two kinds of time, naming the options', () => {
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', 'hello'])).toThrow('add needs exactly one of --at, --in, --every, --cron');
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '5m', '--every', '1h', 'hello'])).toThrow('got --in and --every');
  });

  it('refuses a repeat count that is not written as a whole number', () => {
    for (const repeat of ['', '1e3', '0x10', '2.5']) {
      expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--every', '1h', '--repeat', repeat, 'hello'])).toThrow('--repeat takes a whole number');
    }
  });

  it('reads every option of add', () => {
    const args = [
      'add',
      '--to=slack:C1:1700000000.000100',
      '--cron', '0 9 * * 1',
      '--timezone', 'Europe/Berlin',
      '--name', 'standup',
      '--repeat', '3',
      '--missed', 'skip',
      '--profile', 'support',
      '--json',
      'post', 'the', 'summary',
    ];
    expect(parseScheduleArgs(args)).toEqual({
      request: {
        action: 'add',
        to: 'slack:C1:1700000000.000100',
        prompt: 'post the summary',
        cron: '0 9 * * 1',
        timezone: 'Europe/Berlin',
        name: 'standup',
        repeat: 3,
        missed: 'skip',
        profile: 'support',
      },
      json: true,
    });
  });

  it('accepts --missed run_once', () => {
    expect(parseScheduleArgs(['add', '--to', 'telegram:1', '--every', '1h', '--missed', 'run_once', 'p']).request).toMatchObject({ missed: 'run_once' });
  });

  it('keeps a prompt given after -- even when it starts with a dash', () => {
    expect(parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '5m', '--', '-v', 'means', 'verbose']).request).toEqual({
      action: 'add',
      to: 'telegram:1',
      in: '5m',
      prompt: '-v means verbose',
    });
  });

  it('reads rm, pause and resume with a job id', () => {
    expect(parseScheduleArgs(['rm', 'k3v9x2ab'])).toEqual({ request: { action: 'rm', id: 'k3v9x2ab' }, json: false });
    expect(parseScheduleArgs(['pause', 'k3v9x2ab'])).toEqual({ request: { action: 'pause', id: 'k3v9x2ab' }, json: false });
    expect(parseScheduleArgs(['resume', 'k3v9x2ab', '--json'])).toEqual({ request: { action: 'resume', id: 'k3v9x2ab' }, json: true });
  });

  it('refuses add without --to, saying what it is for', () => {
    expect(() => parseScheduleArgs(['add', '--in', '20m', 'remind me'])).toThrow('add needs --to PLATFORM:CONVERSATION[:THREAD]');
  });

  it('refuses add without a prompt', () => {
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '20m'])).toThrow('add needs a prompt');
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '20m', '  '])).toThrow('add needs a prompt');
  });

  it('refuses a --missed other than run_once or skip', () => {
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '20m', '--missed', 'never', 'p'])).toThrow('--missed is run_once or skip, not "never"');
  });

  it.each(['2.5', 'three', 'NaN'])('refuses --repeat %s', (repeat) => {
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--every', '1h', '--repeat', repeat, 'p'])).toThrow(`--repeat takes a whole number, not "${repeat}"`);
  });

  it('refuses an unknown option, naming it', () => {
    expect(() => parseScheduleArgs(['add', '--to', 'telegram:1', '--in', '20m', '--bogus', 'p'])).toThrow(/--bogus/);
  });

  it('refuses an option without its value', () => {
    expect(() => parseScheduleArgs(['add', 'p', '--to'])).toThrow(/--to/);
  });

  it('refuses list with more arguments than --json', () => {
    expect(() => parseScheduleArgs(['list', 'extra'])).toThrow('list takes no arguments besides --json');
    expect(() => parseScheduleArgs(['list', '--to', 'telegram:1'])).toThrow('list takes no arguments besides --json');
  });

  it.each([
    ['rm without an id', ['rm'], 'rm takes one job id'],
    ['rm with two ids', ['rm', 'a', 'b'], 'rm takes one job id'],
    ['pause with an option of add', ['pause', '--to', 'x', 'y'], 'pause takes one job id'],
    ['resume without an id', ['resume'], 'resume takes one job id'],
  ])('refuses %s', (_case, args, message) => {
    expect(() => parseScheduleArgs(args)).toThrow(message);
  });

  it('refuses an unknown subcommand, naming it', () => {
    expect(() => parseScheduleArgs(['frobnicate'])).toThrow('unknown subcommand "frobnicate"');
  });

  it('refuses no subcommand at all', () => {
    expect(() => parseScheduleArgs([])).toThrow('operator schedule needs a subcommand');
  });
});
