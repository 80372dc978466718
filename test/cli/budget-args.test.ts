/**
 * parseBudgetArgs: the arguments of `operator budget [status] [--json] | pause | resume` turned into
 * the request sent to the gateway, and the messages for arguments that make no request.
 */
import { describe, expect, it } from 'vitest';
import { parseBudgetArgs } from '../../src/cli/budget-command.ts';

describe('parseBudgetArgs', () => {
  it('reads status, the default, with or without --json', () => {
    expect(parseBudgetArgs([])).toEqual({ request: { action: 'status' }, json: false });
    expect(parseBudgetArgs(['status'])).toEqual({ request: { action: 'status' }, json: false });
    expect(parseBudgetArgs(['--json'])).toEqual({ request: { action: 'status' }, json: true });
    expect(parseBudgetArgs(['status', '--json'])).toEqual({ request: { action: 'status' }, json: true });
  });

  it('reads pause and resume', () => {
    expect(parseBudgetArgs(['pause'])).toEqual({ request: { action: 'pause' }, json: false });
    expect(parseBudgetArgs(['resume'])).toEqual({ request: { action: 'resume' }, json: false });
  });

  it.each([
    [['stop'], 'unknown subcommand "stop"'],
    [['pause', 'now'], 'pause takes no arguments'],
    [['resume', '--json'], '--json goes with status only'],
    [['status', '--all'], 'unknown option --all'],
  ])('refuses %j: %s', (args, message) => {
    expect(() => parseBudgetArgs(args)).toThrow(message);
  });
});
