/**
 * The interaction tokens the adapter still holds, each valid for Discord's 15 minutes (less a
 * margin): slash commands acknowledged with a deferred response, waiting for the first message to
 * their channel to complete them; the messages those responses became (edited through the
 * interaction's webhook while the token lives); and button presses, for an ephemeral answer.
 * Expired entries are dropped as new ones arrive, so the registry stays as small as the traffic
 * of the last 15 minutes.
 */

/** How long an interaction token is used: Discord's 15 minutes less a margin for slow calls. */
export const interactionTokenLifetimeMs = 15 * 60_000 - 30_000;

interface Held {
  token: string;
  expiresAt: number;
  /** The slash command a deferred response belongs to. */
  interactionId?: string;
}

/** The registry of one adapter. */
export class InteractionTokens {
  readonly #now: () => number;
  /** Deferred responses by the channel id replies go to, oldest first. */
  readonly #deferred = new Map<string, Held[]>();
  readonly #responses = new Map<string, Held>();
  readonly #actions = new Map<string, Held>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Notes slash command `interactionId` in `channelId` acknowledged with a deferred response. */
  deferred(channelId: string, token: string, interactionId?: string): void {
    this.#sweep();
    const queue = this.#deferred.get(channelId) ?? [];
    queue.push({ ...this.#held(token), ...(interactionId !== undefined && { interactionId }) });
    this.#deferred.set(channelId, queue);
  }

  /**
   * Takes a deferred response of `channelId` still in its window, if any: for a reply to message
   * `replyTo`, only that slash command's own (an answer to someone else's message in the channel
   * must not complete another person's command); without one (a direct message, where one person
   * talks), the oldest.
   */
  takeDeferred(channelId: string, replyTo?: string): string | undefined {
    const queue = this.#deferred.get(channelId);
    if (!queue) return undefined;
    const now = this.#now();
    const live = queue.filter((held) => held.expiresAt > now);
    const index = replyTo === undefined ? 0 : live.findIndex((held) => held.interactionId === replyTo);
    const held = index >= 0 ? live.splice(index, 1)[0] : undefined;
    if (live.length > 0) this.#deferred.set(channelId, live);
    else this.#deferred.delete(channelId);
    return held?.token;
  }

  /** Forgets a deferred response (answered otherwise, e.g. with a notice). */
  dropDeferred(channelId: string, token: string): void {
    const queue = this.#deferred.get(channelId)?.filter((held) => held.token !== token) ?? [];
    if (queue.length > 0) this.#deferred.set(channelId, queue);
    else this.#deferred.delete(channelId);
  }

  /** Notes that message `messageId` is an interaction response, editable with `token`. */
  response(messageId: string, token: string): void {
    this.#sweep();
    this.#responses.set(messageId, this.#held(token));
  }

  /** The token to edit the interaction response `messageId` with, while it lives. */
  responseToken(messageId: string): string | undefined {
    return this.#live(this.#responses, messageId);
  }

  /** Notes a button press's token, for its answer. */
  action(interactionId: string, token: string): void {
    this.#sweep();
    this.#actions.set(interactionId, this.#held(token));
  }

  /** The token of the button press `interactionId`, while it lives. */
  actionToken(interactionId: string): string | undefined {
    return this.#live(this.#actions, interactionId);
  }

  /** How many tokens are held (for tests of the clean-up). */
  get size(): number {
    let deferred = 0;
    for (const queue of this.#deferred.values()) deferred += queue.length;
    return deferred + this.#responses.size + this.#actions.size;
  }

  #held(token: string): Held {
    return { token, expiresAt: this.#now() + interactionTokenLifetimeMs };
  }

  #live(map: Map<string, Held>, key: string): string | undefined {
    const held = map.get(key);
    if (held && held.expiresAt > this.#now()) return held.token;
    map.delete(key);
    return undefined;
  }

  #sweep(): void {
    const now = this.#now();
    for (const map of [this.#responses, this.#actions]) {
      for (const [key, held] of map) if (held.expiresAt <= now) map.delete(key);
    }
    for (const [channelId, queue] of this.#deferred) {
      const live = queue.filter((held) => held.expiresAt > now);
      if (live.length === 0) this.#deferred.delete(channelId);
      else if (live.length !== queue.length) this.#deferred.set(channelId, live);
    }
  }
}
