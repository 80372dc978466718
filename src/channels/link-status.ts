/**
 * What an adapter tells {@link ChannelHandlers.status} about its link to the platform, shared by
 * the adapters: each drop and each recovery once, however many failed attempts lie between them
 * (a long poll failing every few seconds is one `disconnected`), and every rate limit. Reasons
 * pass through the adapter's scrubber, since SDK error texts can carry a token in a URL.
 */
import type { ChannelHandlers, ChannelStatus } from './types.ts';

/** The link's transitions, as an adapter observes them. */
export interface LinkStatus {
  /** The adapter is started and its link works: drops are reported from now on. */
  started(): void;
  /** The adapter stopped: nothing is reported as lost or restored until it starts again. */
  stopped(): void;
  /** The link was lost (reported only if it was up: once per drop). */
  lost(reason: string): void;
  /** The link works (reported only after a reported drop). */
  restored(): void;
  /** The platform asked to wait `retryAfterMs` (reported every time, started or not). */
  rateLimited(retryAfterMs: number): void;
}

/** What {@link createLinkStatus} needs from its adapter. */
export interface LinkStatusOptions {
  /** The current handlers' `status`, if any (read on every report: handlers change per start). */
  status(): ChannelHandlers['status'];
  /** The adapter's token scrubber. */
  scrub(text: string): string;
  /** Where a failing `status` listener is reported. */
  log(line: string): void;
  /** The platform, for the log line. */
  platform: string;
}

/**
 * Creates the link state of one adapter, idle until {@link LinkStatus.started}.
 *
 * @example
 * const link = createLinkStatus({ status: () => handlers?.status, scrub, log, platform: 'telegram' });
 * link.started();
 * link.lost('getUpdates failed: 502 Bad Gateway'); // reported
 * link.lost('getUpdates failed: network error'); // not reported: already down
 * link.restored(); // reported
 */
export function createLinkStatus(options: LinkStatusOptions): LinkStatus {
  let state: 'idle' | 'up' | 'down' = 'idle';

  const report = (status: ChannelStatus) => {
    const listener = options.status();
    if (!listener) return;
    // A failing listener (the gateway's log or metrics) must never break the link itself.
    try {
      listener(status);
    } catch (error) {
      options.log(options.scrub(`${options.platform}: status listener failed: ${error instanceof Error ? error.message : String(error)}`));
    }
  };

  return {
    started() {
      state = 'up';
    },
    stopped() {
      state = 'idle';
    },
    lost(reason) {
      if (state !== 'up') return;
      state = 'down';
      report({ kind: 'disconnected', reason: options.scrub(reason) });
    },
    restored() {
      if (state !== 'down') return;
      state = 'up';
      report({ kind: 'reconnected' });
    },
    rateLimited(retryAfterMs) {
      report({ kind: 'rate_limited', retryAfterMs });
    },
  };
}
