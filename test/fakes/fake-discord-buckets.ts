/**
 * Per-route rate limits the fake enforces when a test asks for them (by default it only reports
 * a bucket that never runs out). As Discord counts them: per route and top-level resource (the
 * channel, guild or webhook in the path), a window of `limit` calls that resets `resetAfter`
 * seconds after its first call, reported in every answer's `X-RateLimit-Limit`, `-Remaining`,
 * `-Reset`, `-Reset-After` and `-Bucket` headers. A call beyond the window is not carried out: it
 * is answered 429 `{ message, retry_after, global: false }` with `Retry-After` and scope `user`.
 */
import { bucketOf, type RestAnswer } from './fake-discord-answers.ts';

/** A route's limit: `limit` calls per window of `resetAfter` seconds. */
export interface FakeRouteLimit {
  limit: number;
  resetAfter: number;
}

/** What one call gets from its bucket: the headers of its answer, or the 429 that refuses it. */
export type FakeBucketVerdict = { headers: Record<string, string> } | { refused: RestAnswer };

/** The top-level resource of a REST path, as Discord keys a route's buckets. */
function topLevelResource(path: string): string {
  return /^\/(?:channels|guilds|webhooks)\/(\d+)/.exec(path)?.[1] ?? 'global';
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** The limited routes and their open windows. */
export class FakeBuckets {
  readonly #limits = new Map<string, FakeRouteLimit>();
  readonly #windows = new Map<string, { remaining: number; resetAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Limits the route named `route` (`createMessage`, ...) from now on. */
  limit(route: string, limit: FakeRouteLimit): void {
    this.#limits.set(route, limit);
  }

  /** Counts one call of `route` on `path`; undefined when the route is not limited. */
  take(route: string, path: string): FakeBucketVerdict | undefined {
    const limit = this.#limits.get(route);
    if (!limit) return undefined;
    const now = this.now();
    const key = `${route}:${topLevelResource(path)}`;
    let window = this.#windows.get(key);
    if (!window || now >= window.resetAt) {
      window = { remaining: limit.limit, resetAt: now + limit.resetAfter * 1000 };
      this.#windows.set(key, window);
    }
    const waitMs = window.resetAt - now;
    const headers = (remaining: number) => ({
      'x-ratelimit-limit': String(limit.limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': seconds(window.resetAt),
      'x-ratelimit-reset-after': seconds(waitMs),
      'x-ratelimit-bucket': bucketOf(route),
    });
    if (window.remaining === 0) {
      const retryAfter = Number(seconds(waitMs));
      return {
        refused: {
          status: 429,
          body: { message: 'You are being rate limited.', retry_after: retryAfter, global: false, code: 0 },
          headers: { ...headers(0), 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-scope': 'user' },
        },
      };
    }
    window.remaining -= 1;
    return { headers: headers(window.remaining) };
  }
}
