/** `/status` writes counts, money and durations one way. */
import { describe, expect, it } from 'vitest';
import type { SubagentRecord } from '../../src/agent/subagents/index.ts';
import { formatCost, formatCount, formatDuration, formatTokens } from '../../src/gateway/status-format.ts';
import { subagentStatus } from '../../src/gateway/subagent-status.ts';

describe('status formats', () => {
  it('writes counts with thousands separators', () => {
    expect([0, 999, 1_000, 1_234_567].map(formatCount)).toEqual(['0', '999', '1,000', '1,234,567']);
    expect([formatTokens(1), formatTokens(200_000)]).toEqual(['1 token', '200,000 tokens']);
  });

  it('writes money in dollars with four decimals', () => {
    expect([0, 0.01234, 0.5, 12, 1234.5].map(formatCost)).toEqual(['$0.0000', '$0.0123', '$0.5000', '$12.0000', '$1,234.5000']);
  });

  it('writes durations as their two largest units', () => {
    expect([0, 999, 1_000, 42_400, 60_000, 185_000, 3_600_000, 7_620_000].map(formatDuration)).toEqual(['<1s', '<1s', '1s', '42s', '1m 00s', '3m 05s', '1h 00m', '2h 07m']);
  });
});

describe('subagent status', () => {
  const usage = { input: 1_500, output: 2_100, cacheRead: 300, cacheWrite: 0 };
  const record = (changes: Partial<SubagentRecord>): SubagentRecord => ({
    id: 'a1b2',
    task: 'Write alpha.md',
    sessionKey: 'telegram:dm:1/sub/a1b2',
    model: 'claude-haiku-4-5',
    status: 'done',
    closed: false,
    startedAt: 1_000,
    endedAt: 66_000,
    toolCalls: 1,
    usage,
    cost: 0.01234,
    ...changes,
  });

  it('uses the same formats as the rest of /status, and times each child', () => {
    const lines = subagentStatus(
      {
        records: [record({}), record({ id: 'c3d4', status: 'running', endedAt: undefined, toolCalls: 12, cost: 1.5 }), record({ id: 'e5f6', status: 'interrupted', endedAt: undefined, closed: true })],
        spent: { children: 3, usage, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 1.52468 } },
      },
      43_000,
    );
    expect(lines).toEqual([
      'Subagents: 3 started, 1 working; 1,800 tokens in, 2,100 out, $1.5247 (charged to this conversation)',
      '  a1b2 done: Write alpha.md (1 tool call, 1m 05s, $0.0123; session telegram:dm:1/sub/a1b2)',
      '  c3d4 working: Write alpha.md (12 tool calls, 42s, $1.5000; session telegram:dm:1/sub/a1b2)',
      '  e5f6 interrupted by a restart, closed: Write alpha.md (1 tool call, $0.0123; session telegram:dm:1/sub/a1b2)',
    ]);
  });
});
