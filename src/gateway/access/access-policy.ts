/**
 * Who may talk to the bot. Admins always (the configured ones, and the owner made by pairing); in
 * groups by the platform's `groupPolicy` (see `group-access.ts`: by default only in groups an admin
 * added the bot to or approved); in direct messages by the platform's policy:
 *
 * - `open`: anyone;
 * - `allowlist`: people in the platform's `allowlists.users` or approved by pairing;
 * - `pairing`: like `allowlist`, and an unknown person gets a pairing code to give an admin, who
 *   approves it with `/pair CODE` or `operator pairing approve CODE` (or turns it down with
 *   `operator pairing deny CODE`: the person is then refused for a day).
 */
import type { GroupJoin, InboundMessage } from '../../channels/types.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { DmPolicy, GroupPolicy } from '../config/schema.ts';
import type { Store } from '../../store/store.ts';
import type { ApprovedGroup } from './group-book.ts';
import { checkGroupMessage, joinGroup, type GroupAccessParts, type GroupJoinOutcome } from './group-access.ts';
import { describeDuration, PairingBook, type PairedPerson, type PairingBookOptions, type PairingListing, type PairingRequest } from './pairing-book.ts';

/** The verdict on one message. */
export type AccessDecision =
  | { allowed: true; admin: boolean }
  /**
   * `reply`, when present, is sent in the conversation: to the person (a pairing code, a
   * refusal), or in a group its pairing code, once. `pairingCode`: the code given, for the log
   * (an admin approves it). `reason`: why, for the log, where it is not plain.
   */
  | { allowed: false; reply?: string; pairingCode?: string; reason?: string };

/** Access checks and pairing. */
export interface AccessPolicy {
  /** Whether `message` may reach the agent, and whether its sender is an admin. */
  check(message: InboundMessage): Promise<AccessDecision>;
  /**
   * Whether `platform:userId` is an admin: configured, or the owner made by pairing as last read
   * from the store (every {@link check} and {@link refresh} reads it again).
   */
  isAdmin(platform: string, userId: string): boolean;
  /** Reads the owner made by pairing again (another process may have changed it). */
  refresh(): Promise<void>;
  /**
   * Approves a pairing code: its person may then write in direct messages, or its group is served,
   * and is told so (see `pairing-notifier.ts`). Never makes an owner: that is `operator pairing
   * approve --owner`'s.
   *
   * @throws PairingError for a malformed, unknown or expired code.
   */
  approvePairing(code: string): Promise<PairedPerson | ApprovedGroup>;
  /** The bot was added to a group: approved when an admin added it, else maybe a code to tell there. */
  groupJoined(join: GroupJoin): Promise<GroupJoinOutcome>;
  /** Codes waiting for approval, approved and refused people, and the owner. */
  listPairings(): Promise<PairingListing>;
}

/** The settings access depends on. */
export type AccessConfig = Pick<GatewayConfig, 'admins' | 'dmPolicy' | 'allowlists' | 'groupPolicy'>;

/** Options of {@link createAccessPolicy}: the clock, code lifetime and refusal time of pairing. */
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
  let owner: string | undefined;
  const lists = new Map(
    Object.entries(config.allowlists).map(([platform, list]) => [platform, { chats: new Set(list.chats), users: new Set(list.users) }]),
  );
  const policies: Readonly<Record<string, DmPolicy | undefined>> = config.dmPolicy;
  const groupPolicies: Readonly<Record<string, GroupPolicy | undefined>> = config.groupPolicy;
  const refresh = async () => {
    const person = await book.owner();
    owner = person && `${person.platform}:${person.userId}`;
  };
  const isAdmin = (platform: string, userId: string) => admins.has(`${platform}:${userId}`) || owner === `${platform}:${userId}`;
  const groupParts: GroupAccessParts = {
    // An unknown platform gets the strictest policy that still lets groups in.
    policy: (platform) => groupPolicies[platform] ?? 'approval',
    lists: (platform) => lists.get(platform),
    groups: book.groups,
    now,
  };

  return {
    async check(message) {
      const { platform } = message.address;
      const userId = message.sender.id;
      if (admins.has(`${platform}:${userId}`)) return { allowed: true, admin: true };
      // Read on every message: `operator pairing` may have made or revoked the owner meanwhile.
      await refresh();
      if (owner === `${platform}:${userId}`) return { allowed: true, admin: true };
      if (message.scope === 'group') return checkGroupMessage(message, groupParts);
      const list = lists.get(platform);
      // An unknown platform gets the strictest policy that still lets people in.
      const policy = policies[platform] ?? 'pairing';
      if (policy === 'open') return { allowed: true, admin: false };
      if (list?.users.has(userId) || (await book.isApproved(platform, userId))) return { allowed: true, admin: false };
      if (message.sender.isBot) return { allowed: false };
      if (policy === 'allowlist') {
        return { allowed: false, reason: 'not on the allowlist', reply: `Sorry, I only talk with people on my allowlist. Ask an admin of this bot to add you (your id: ${platform}:${userId}).` };
      }
      const deniedUntil = await book.deniedUntil(platform, userId);
      if (deniedUntil !== undefined) return { allowed: false, reason: 'declined by an admin', reply: deniedReply(deniedUntil, now()) };
      const request = await book.request({ platform, userId, name: message.sender.name, username: message.sender.username }, message.address);
      return { allowed: false, reply: pairingReply(request, now()), pairingCode: request.code };
    },
    isAdmin,
    refresh,
    approvePairing: (code) => book.approve(code),
    async groupJoined(join) {
      await refresh();
      return joinGroup(join, join.by !== undefined && isAdmin(join.address.platform, join.by.id), groupParts);
    },
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

/** The answer to someone an admin turned down, with the time left in whole hours (or minutes, under one). */
function deniedReply(until: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  const left = describeDuration(minutes > 60 ? Math.ceil(minutes / 60) * 3_600 : minutes * 60);
  return `Sorry, an admin of this bot declined your request to talk with me. You can ask for a new pairing code in ${left}.`;
}
