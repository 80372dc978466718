/**
 * Saying why a message was not answered: every refusal is reported with its reason (the
 * `message.refused` event: the log, the metrics, the console's feed), and its sender hears the
 * reason once per hour (see `refusal-notices.ts`), not at every message. Group mention gating is
 * not a refusal (talk not addressed to the bot): it never comes here.
 *
 * A pairing code is told whenever it is asked for, as before: it is the stranger's way in (one who
 * lost it asks again, and the book hands out the same code within its lifetime), and a group's is
 * told once by its book. Everything else an access policy refuses with a reply (not on the
 * allowlist, declined by an admin) and every turn refused for something about the bot (no model
 * configured, a provider failing, a spending cap, model calls paused: see `failure-reply.ts`) is
 * told once per reason per hour per person. So are files refused for their size (the message is
 * answered; the model is told of each file, so it can say which) and a message whose conversation
 * cannot be set up (its profile does not load: nothing the person can do but tell the admin).
 */
import type { InboundMessage } from '../channels/types.ts';
import type { AccessDecision } from './access/access-policy.ts';
import { reportRefusal } from './ops/gateway-reports.ts';
import type { OpsEvents } from './ops/ops-events.ts';
import { RefusalNotices } from './refusal-notices.ts';

/** An access policy's refusal. */
export type AccessRefusal = Extract<AccessDecision, { allowed: false }>;

/** Refusals reported, and their reasons told once an hour per person. */
export class Refusals {
  readonly #ops: OpsEvents;
  readonly #notices: RefusalNotices;

  constructor(ops: OpsEvents, notices: RefusalNotices = new RefusalNotices()) {
    this.#ops = ops;
    this.#notices = notices;
  }

  /** A message the access policy refused: reported, and its reply (if any) sent through `send` when due. */
  async access(message: InboundMessage, decision: AccessRefusal, send: (text: string) => Promise<void>): Promise<void> {
    const { reply, pairingCode } = decision;
    const reason = decision.reason ?? (message.scope === 'group' ? 'not on the allowlist' : 'not allowed in direct messages');
    const told = reply !== undefined && (pairingCode !== undefined || this.#notices.take(personOf(message), reason));
    reportRefusal(this.#ops, message, pairingCode, reason, reply === undefined ? undefined : told);
    if (told) await send(reply);
  }

  /**
   * A message whose turn was refused for `reason` (decided by `refusalReason` in
   * `failure-reply.ts`): reported; returns whether its sender is to be told now. `shown`: the
   * turn's preview is on screen already, and is finished with the reason whatever the hour
   * (an edit of what the person sees, not one message more), so it counts as told.
   */
  turn(message: InboundMessage, reason: string, shown = false): boolean {
    const told = this.#notices.take(personOf(message), reason) || shown;
    this.#ops.emit({ type: 'message.refused', platform: message.address.platform, conversation: message.sessionKey, reason, told });
    return told;
  }

  /**
   * `count` files of `message` not taken because they were too large (the message itself is
   * answered): reported; returns whether its sender is to be told now. The model gets a line for
   * each file whatever this says, so the answer can name them after the hour's notice.
   */
  files(message: InboundMessage, count: number): boolean {
    const told = this.#notices.take(personOf(message), fileTooLargeReason);
    this.#ops.emit({ type: 'files.refused', platform: message.address.platform, conversation: message.sessionKey, reason: fileTooLargeReason, files: count, told });
    return told;
  }

  /**
   * A message that cannot be handled at all: its conversation could not be set up (its profile
   * does not load). Reported, and the sender told through `send` once an hour: writing again
   * cannot help until an admin fixes the profile, so the rest of the hour stays silent.
   */
  async notHandled(message: InboundMessage, send: (text: string) => Promise<void>): Promise<void> {
    const told = this.#notices.take(personOf(message), notHandledReason);
    this.#ops.emit({ type: 'message.refused', platform: message.address.platform, conversation: message.sessionKey, reason: notHandledReason, told });
    if (told) await send(notHandledReply);
  }
}

/** The reason of files refused for their size (the `files.refused` event's, and the notice's once an hour). */
export const fileTooLargeReason = 'file too large';

/** The reason of a message whose conversation could not be set up. */
export const notHandledReason = 'profile not loaded';

/** What the sender of such a message hears (once an hour): why, and who can fix it. */
export const notHandledReply = "Sorry, I cannot answer here: this conversation's settings (its profile) could not be loaded. Please let the bot's admin know.";

/** Who is told: the sender, on their platform (the same person in another chat has heard it). */
function personOf(message: InboundMessage): string {
  return `${message.address.platform}:${message.sender.id}`;
}
