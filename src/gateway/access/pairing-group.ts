/**
 * Groups as pairing knows them: a Telegram group, a Slack channel, a Discord server, named
 * `<platform>:<kind>:<id>` (`telegram:group:-1001234`, `slack:channel:C0123`,
 * `discord:guild:8123`) wherever an admin reads or types one (`operator pairing list`, `revoke`,
 * the console).
 */
import type { GroupRef, InboundMessage } from '../../channels/types.ts';

/** A group of a platform, as an admin approves it. */
export interface PairingGroup extends GroupRef {
  platform: string;
}

/** The group of a group message: the adapter's, or else its conversation (`<platform>:group:<id>`). */
export function groupOf(message: Pick<InboundMessage, 'address' | 'group'>): PairingGroup {
  const { platform, conversationId } = message.address;
  return message.group ? { platform, ...message.group } : { platform, kind: 'group', id: conversationId };
}

/** `telegram:group:-1001234`. */
export function groupLabel(group: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): string {
  return `${group.platform}:${group.kind}:${group.id}`;
}

/** `telegram:group:-1001234 "Ada's team"`: the label, and the name when known. */
export function describeGroup(group: PairingGroup): string {
  return group.title ? `${groupLabel(group)} "${group.title}"` : groupLabel(group);
}

const labelPattern = /^([a-z]+):(group|channel|guild):(\S+)$/;

/** The group a label names (`telegram:group:-1001234`), or `undefined` when it names none. */
export function parseGroupLabel(text: string): PairingGroup | undefined {
  const match = labelPattern.exec(text.trim());
  return match ? { platform: match[1]!, kind: match[2] as PairingGroup['kind'], id: match[3]! } : undefined;
}

/** Whether two refer to the same group (names aside). */
export function sameGroup(a: Pick<PairingGroup, 'platform' | 'kind' | 'id'>, b: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): boolean {
  return a.platform === b.platform && a.kind === b.kind && a.id === b.id;
}
