/** Failed logins per client: a limit per window, then refusals with the wait, memory bounded. */
import { describe, expect, it } from 'vitest';
import { LoginRateLimiter } from '../../src/gateway/http/index.ts';
import type { LoginFailures } from '../../src/gateway/http/login-rate-limiter.ts';

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

  it('decides an attempt in one step: refused at the limit whatever the token, the failure that reaches it said once', () => {
    const limiter = new LoginRateLimiter({ maxFailures: 2 });
    expect(limiter.attempt('a', false)).toEqual({ outcome: 'wrong' });
    expect(limiter.attempt('a', false)).toEqual({ outcome: 'refused', retryAfter: 15 * 60, reachedNow: true });
    expect(limiter.attempt('a', true)).toEqual({ outcome: 'refused', retryAfter: 15 * 60, reachedNow: false });
    expect(limiter.attempt('b', false)).toEqual({ outcome: 'wrong' });
    expect(limiter.attempt('b', true)).toEqual({ outcome: 'ok' });
    expect(limiter.attempt('b', false)).toEqual({ outcome: 'wrong' });
  });

  it('tells each change to what keeps the failures, and a limiter made from them goes on counting', () => {
    const time = clock();
    const kept = new Map<string, LoginFailures>();
    const onChange = (client: string, failures: LoginFailures | undefined) => void (failures === undefined ? kept.delete(client) : kept.set(client, failures));
    const options = { maxFailures: 3, maxClients: 2, windowMs: 1000, now: time.now, onChange };
    const first = new LoginRateLimiter(options);
    first.fail('a');
    first.fail('a');
    first.fail('b');
    first.succeed('b');
    expect([...kept]).toEqual([['a', { count: 2, since: 1_000_000 }]]);
    // Another limiter (an object woken after an eviction) starts from what was kept.
    const second = new LoginRateLimiter({ ...options, failures: kept });
    expect(second.fail('a')).toBe(1);
    expect(kept.get('a')).toEqual({ count: 3, since: 1_000_000 });
    // What the limiter drops, by expiry or for room, is dropped from the keeping too.
    second.fail('b');
    second.fail('c');
    expect([...kept.keys()]).toEqual(['b', 'c']);
    time.advance(1000);
    expect(second.retryAfter('b')).toBeUndefined();
    expect([...kept.keys()]).toEqual(['c']);
    // Failures kept beyond `maxClients` are cut down to it, the least recently failed first.
    const third = new LoginRateLimiter({ ...options, failures: [['x', { count: 1, since: time.now() }], ['y', { count: 1, since: time.now() }], ['z', { count: 1, since: time.now() }]] });
    expect(third.size).toBe(2);
    expect(third.fail('x')).toBeUndefined();
    expect(third.retryAfter('y')).toBeUndefined();
  });
});
