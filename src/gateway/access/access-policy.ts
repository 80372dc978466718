/**
 * Who may talk to the bot. Admins always; in groups anyone, unless the platform's allowlists
 * restrict chats or people; in direct messages by the platform's policy:
 *
 * - `open`: anyone;
 * - `allowlist`: people in the platform's `allowlists.users` or approved by pairing;
 * - `pairing`: like `allowlist`, and an unknown person gets a pairing code to give an admin, who
 *   approves it with `/pair CODE` or `operator pairing approve CODE`.
 */
import type { InboundMessage } from '../../channels/types.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { DmPolicy } from '../config/schema.ts';
import type { Store } from '../../store/store.ts';
import { describeDuration, PairingBook, type PairedPerson, type PairingBookOptions, type PairingRequest } from './pairing-book.ts';

/** The verdict on one message. */
export type AccessDecision =
  | { allowed: true; admin: boolean }
  /** `reply`, when present, is sent to the person (a pairing code, a refusal); never in groups. */
  | { allowed: false; reply?: string };

/** Access checks and pairing. */
export interface AccessPolicy {
  /** Whether `message` may reach the agent, and whether its sender is an admin. */
  check(message: InboundMessage): Promise<AccessDecision>;
  /**
   * Approves a pairing code: its person may then write in direct messages.
   *
   * @throws PairingError for a malformed, unknown or expired code.
   */
  approvePairing(code: string): Promise<PairedPerson>;
  /** Codes waiting for approval and approved people, oldest first. */
  listPairings(): Promise<{ pending: PairingRequest[]; approved: PairedPerson[] }>;
}

/** The settings access depends on. */
export type AccessConfig = Pick<GatewayConfig, 'admins' | 'dmPolicy' | 'allowlists'>;

/** Options of {@link createAccessPolicy}: the clock and code lifetime of pairing. */
export type AccessPolicyOptions = PairingBookOptions;

/**
 * Creates the {@link AccessPolicy} of `config`, keeping pairing state in `store`.
 *
 * @example
 * const access = createAccessPolicy(config, store);
 * const decision = await access.check(message);
 * if (!decision.allowed) return decision.reply && adapter.send(message.address, { text: decision.reply });
 */
export function createAccessPolicy(config: AccessConfig, store: Store, options: AccessPolicyOptions = {}): AccessPolicy {
  const book = new PairingBook(store, options);
  const now = options.now ?? Date.now;
  const admins = new Set(config.admins);
  const lists = new Map(
    Object.entries(config.allowlists).map(([platform, list]) => [platform, { chats: new Set(list.chats), users: new Set(list.users) }]),
  );
  const policies: Readonly<Record<string, DmPolicy | undefined>> = config.dmPolicy;

  return {
    async check(message) {
      const { platform, conversationId } = message.address;
      const userId = message.sender.id;
      if (admins.has(`${platform}:${userId}`)) return { allowed: true, admin: true };
      const list = lists.get(platform);
      if (message.scope === 'group') {
        if (list && list.chats.size > 0 && !list.chats.has(conversationId)) return { allowed: false };
        if (list && list.users.size > 0 && !list.users.has(userId)) return { allowed: false };
        return { allowed: true, admin: false };
      }
      // An unknown platform gets the strictest policy that still lets people in.
      const policy = policies[platform] ?? 'pairing';
      if (policy === 'open') return { allowed: true, admin: false };
      if (list?.users.has(userId) || (await book.isApproved(platform, userId))) return { allowed: true, admin: false };
      if (message.sender.isBot) return { allowed: false };
      if (policy === 'allowlist') {
        return { allowed: false, reply: `Sorry, I only talk with people on my allowlist. Ask an admin of this bot to add you (your id: ${platform}:${userId}).` };
      }
      const request = await book.request({ platform, userId, name: message.sender.name, username: message.sender.username });
      return { allowed: false, reply: pairingReply(request, now()) };
    },
    approvePairing: (code) => book.approve(code),
    listPairings: () => book.list(),
  };
}

function pairingReply(request: PairingRequest, now: number): string {
  // The same code is handed out again within its lifetime: say how long it has left.
  const lifetime = describeDuration(Math.max(1, Math.ceil((request.expiresAt - now) / 60_000)) * 60);
  return [
    "Hi! I don't know you yet. To talk with me, send this pairing code to an admin of this bot:",
    '',
    request.code,
    '',
    `The code is valid for ${lifetime}. An admin approves it with /pair ${request.code} (or operator pairing approve ${request.code}).`,
  ].join('\n');
}
