/**
 * The console's pairing requests, people's and groups': listed, approved, denied and revoked
 * through the code the chat and the command line use: an approval goes through the gateway's access policy and its
 * notifier tells the person at once (as `/pair` does); a denial and a revocation go through the
 * pairing book (as `operator pairing deny|revoke` do). Only names and ids leave the gateway.
 */
import { describeGroup, PairingBook, PairingError, parseGroupLabel, type PairingListing, type PairingPerson } from '../access/index.ts';
import type { AdminGateway } from './admin-routes.ts';

/** A pairing change the console offers. */
export type PairingAction =
  | { action: 'approve'; code: string }
  | { action: 'deny'; code: string }
  | { action: 'revoke'; platform: string; userId: string }
  /** A group's approval taken back; `group` as listed, e.g. `telegram:group:-1001234`. */
  | { action: 'revoke-group'; group: string };

/** The answer to a change: `ok: false` with the reason when it was refused (an unknown or expired code). */
export interface PairingReply {
  ok: boolean;
  text: string;
}

/** Codes waiting, approved and refused people, and the owner made by pairing. */
export function listPairing(gateway: AdminGateway): Promise<PairingListing> {
  return gateway.access.listPairings();
}

/** Applies `change`; a {@link PairingError} is an answer with `ok: false`. */
export async function changePairing(gateway: AdminGateway, change: PairingAction): Promise<PairingReply> {
  try {
    switch (change.action) {
      case 'approve': {
        const approved = await gateway.access.approvePairing(change.code);
        // Told at once rather than at the notifier's next sweep, as after /pair.
        await gateway.notifier.sweep();
        if ('group' in approved) return { ok: true, text: `Approved ${describeGroup(approved.group)}: the bot answers there now (the group is told).` };
        return { ok: true, text: `Paired ${describePerson(approved)}: they can now talk to the bot in direct messages.` };
      }
      case 'deny': {
        const denied = await new PairingBook(gateway.runtime.store).deny(change.code);
        const until = `${new Date(denied.until).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
        if ('group' in denied) return { ok: true, text: `Declined ${describeGroup(denied.group)}: no new code there until ${until}.` };
        return { ok: true, text: `Declined ${describePerson(denied)}: refused until ${until}.` };
      }
      case 'revoke-group': {
        const group = parseGroupLabel(change.group);
        if (!group) return { ok: false, text: `Not a group: ${change.group} (groups are named like telegram:group:-1001234)` };
        const revoked = await new PairingBook(gateway.runtime.store).groups.revoke(group);
        if (!revoked) return { ok: false, text: `${change.group} is not an approved group` };
        return { ok: true, text: `Revoked ${describeGroup(revoked.group)}: the bot no longer answers there.` };
      }
      case 'revoke': {
        const { person, owner } = await new PairingBook(gateway.runtime.store).revoke(change.platform, change.userId);
        await gateway.access.refresh();
        return { ok: true, text: `Revoked ${describePerson(person)}: their direct messages are treated like a stranger's again.${owner ? " They are no longer the bot's owner." : ''}` };
      }
    }
  } catch (error) {
    if (error instanceof PairingError) return { ok: false, text: error.message };
    throw error;
  }
}

/** `telegram:42 Ada (@ada)`. */
function describePerson(person: PairingPerson): string {
  const names = [person.name, person.username ? `(@${person.username})` : undefined].filter(Boolean).join(' ');
  return `${person.platform}:${person.userId}${names ? ` ${names}` : ''}`;
}
