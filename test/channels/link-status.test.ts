/**
 * The link state the adapters share: each drop and each return reported once, nothing while the
 * adapter is not started, reasons scrubbed, rate limits always, and a failing listener logged
 * without breaking the caller.
 */
import { describe, expect, it } from 'vitest';
import { createLinkStatus } from '../../src/channels/link-status.ts';
import type { ChannelStatus } from '../../src/channels/types.ts';

function recorded(options: { failing?: boolean } = {}) {
  const statuses: ChannelStatus[] = [];
  const logs: string[] = [];
  const link = createLinkStatus({
    status: () => (status) => {
      statuses.push(status);
      if (options.failing) throw new Error('metrics down');
    },
    scrub: (text) => text.split('s3cret').join('<token>'),
    log: (line) => logs.push(line),
    platform: 'test',
  });
  return { link, statuses, logs };
}

describe('link status', () => {
  it('reports a drop once and its end once, however many failures come between', () => {
    const { link, statuses } = recorded();
    link.started();
    link.restored();
    link.lost('first failure with s3cret');
    link.lost('second failure');
    link.lost('third failure');
    link.restored();
    link.restored();
    link.lost('again');
    expect(statuses).toEqual([
      { kind: 'disconnected', reason: 'first failure with <token>' },
      { kind: 'reconnected' },
      { kind: 'disconnected', reason: 'again' },
    ]);
  });

  it('reports no drop before start or after stop, but every rate limit', () => {
    const { link, statuses } = recorded();
    link.lost('while starting');
    link.rateLimited(2_000);
    link.started();
    link.stopped();
    link.lost('while stopping');
    link.restored();
    link.rateLimited(500);
    expect(statuses).toEqual([
      { kind: 'rate_limited', retryAfterMs: 2_000 },
      { kind: 'rate_limited', retryAfterMs: 500 },
    ]);
  });

  it('logs a failing listener and goes on', () => {
    const { link, statuses, logs } = recorded({ failing: true });
    link.started();
    expect(() => link.lost('down')).not.toThrow();
    link.restored();
    expect(statuses.map((status) => status.kind)).toEqual(['disconnected', 'reconnected']);
    expect(logs).toEqual(['test: status listener failed: metrics down', 'test: status listener failed: metrics down']);
  });

  it('reports nothing without a listener', () => {
    const link = createLinkStatus({ status: () => undefined, scrub: (text) => text, log: () => {}, platform: 'test' });
    link.started();
    expect(() => {
      link.lost('down');
      link.restored();
      link.rateLimited(1);
    }).not.toThrow();
  });
});
