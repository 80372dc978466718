/**
 * The fetch of the Socket Mode client's own WebClient (it calls `apps.connections.open` with the
 * app token on every reconnect). That client waits out Slack's rate limits itself, which its
 * reconnect loop relies on, and keeps its WebClient private; its transport is the one place a
 * 429 of it can be seen. The adapter's WebClient rejects rate-limited calls instead and reports
 * them from `call-slack.ts`: the two never see the same answer, so no 429 is counted twice.
 */
import type { webApi } from '@slack/bolt';

/** Seconds of a `Retry-After` header as ms, or undefined when it is not a number (the SDK then does not wait). */
function retryAfterMs(header: string | null): number | undefined {
  const seconds = header === null ? Number.NaN : Number.parseInt(header, 10);
  return Number.isNaN(seconds) ? undefined : seconds * 1000;
}

/**
 * Node's `fetch`, telling `report` of each 429 answer with the wait its `Retry-After` asks for.
 *
 * @example
 * new SocketModeClient({ appToken, clientOptions: { fetch: rateLimitReportingFetch((waitMs) => link.rateLimited(waitMs)) } });
 */
export function rateLimitReportingFetch(report: (waitMs: number) => void): webApi.FetchFunction {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.status === 429) {
      const waitMs = retryAfterMs(response.headers.get('retry-after'));
      if (waitMs !== undefined) report(waitMs);
    }
    return response;
  };
}
