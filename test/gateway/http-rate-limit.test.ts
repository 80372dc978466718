/** Failed logins per client: a limit per window, then refusals with the wait, memory bounded. */
import { describe, expect, it } from 'vitest';
import { LoginRateLimiter } from '../../src/gateway/http/index.ts';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('LoginRateLimiter', () => {
  it('allows five failures in fifteen minutes, then refuses until the window ends, saying how long', () => {
    const time = clock();
    const limiter = new LoginRateLimiter({ now: time.now });
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect(limiter.retryAfter('192.0.2.1')).toBeUndefined();
      expect(limiter.fail('192.0.2.1')).toBeUndefined();
    }
    expect(limiter.fail('192.0.2.1')).toBe(15 * 60);
    time.advance(60_000);
    expect(limiter.retryAfter('192.0.2.1')).toBe(14 * 60);
    // Another client is not affected.
    expect(limiter.retryAfter('192.0.2.2')).toBeUndefined();
    time.advance(14 * 60_000);
    expect(limiter.retryAfter('192.0.2.1')).toBeUndefined();
    expect(limiter.fail('192.0.2.1')).toBeUndefined();
  });

  it('forgets a client\'s failures when it logs in', () => {
    const limiter = new LoginRateLimiter({ maxFailures: 2 });
    limiter.fail('a');
    limiter.succeed('a');
    expect(limiter.fail('a')).toBeUndefined();
  });

  it('remembers at most maxClients: expired ones go first, then the least recently failed', () => {
    const time = clock();
    const limiter = new LoginRateLimiter({ maxFailures: 1, maxClients: 3, windowMs: 1000, now: time.now });
    limiter.fail('old');
    time.advance(1000);
    limiter.fail('a');
    limiter.fail('b');
    limiter.fail('c');
    expect(limiter.size).toBe(3);
    expect(limiter.retryAfter('old')).toBeUndefined();
    limiter.fail('d');
    expect(limiter.size).toBe(3);
    expect(limiter.retryAfter('a')).toBeUndefined();
    expect(limiter.retryAfter('b')).toBeDefined();
    expect(limiter.retryAfter('d')).toBeDefined();
    for (let index = 0; index < 1000; index++) limiter.fail(`flood-${index}`);
    expect(limiter.size).toBe(3);
  });
});
