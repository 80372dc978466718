/**
 * Which profile (persona) a conversation gets. Resolution, highest first: a binding of the thread,
 * a binding of the channel, the person's own choice — in that person's direct messages only, so a
 * personal MEMORY.md never reaches a group — and else the default profile.
 */
import type { Store } from '../store/store.ts';

/** The conversation asking for its profile. */
export interface ConversationRef {
  /** `telegram`, `discord`, `slack`, `web`, `terminal`. */
  platform: string;
  /** The chat / channel id on that platform. */
  conversationId: string;
  /** A thread or forum topic within the conversation. */
  threadId?: string;
  /** Who sent the message. */
  senderId?: string;
  /** A one-to-one conversation with the sender. */
  isDirect: boolean;
}

/** Configured bindings (from the configuration file), keyed as `platform:id`. */
export interface ProfileBindings {
  /** `platform:conversation` or `platform:conversation:thread` -> profile. */
  channels?: Readonly<Record<string, string>>;
  /** `platform:userId` -> the profile of that person's direct messages. */
  people?: Readonly<Record<string, string>>;
}

/** Why a profile was chosen. */
export type ProfileReason = 'thread' | 'channel' | 'person' | 'default';

/** Resolves a conversation's profile from bindings (see the file comment for the order). */
export function resolveProfile(ref: ConversationRef, bindings: ProfileBindings, defaultProfile = 'default'): { profile: string; reason: ProfileReason } {
  const channel = `${ref.platform}:${ref.conversationId}`;
  if (ref.threadId !== undefined) {
    const thread = bindings.channels?.[`${channel}:${ref.threadId}`];
    if (thread) return { profile: thread, reason: 'thread' };
  }
  const bound = bindings.channels?.[channel];
  if (bound) return { profile: bound, reason: 'channel' };
  if (ref.isDirect && ref.senderId !== undefined) {
    const own = bindings.people?.[`${ref.platform}:${ref.senderId}`];
    if (own) return { profile: own, reason: 'person' };
  }
  return { profile: defaultProfile, reason: 'default' };
}

/**
 * Bindings made from the chat (`/profile NAME`), kept in the store next to the configured ones.
 * Configured bindings are the base; chat bindings override them.
 */
export class ProfileBindingStore {
  constructor(private readonly store: Store) {}

  /** Configured bindings overlaid with the ones made from the chat. */
  async bindings(configured: ProfileBindings = {}): Promise<ProfileBindings> {
    const stored = (await this.store.get<Required<ProfileBindings>>('profile-bindings')) ?? { channels: {}, people: {} };
    return {
      channels: { ...configured.channels, ...stored.channels },
      people: { ...configured.people, ...stored.people },
    };
  }

  /** Binds a channel (or a thread: `platform:conversation:thread`) to `profile`; `undefined` unbinds. */
  bindChannel(key: string, profile: string | undefined): Promise<void> {
    return this.update('channels', key, profile);
  }

  /** Sets the profile of a person's own direct messages (`platform:userId`); `undefined` unsets. */
  bindPerson(key: string, profile: string | undefined): Promise<void> {
    return this.update('people', key, profile);
  }

  private async update(kind: 'channels' | 'people', key: string, profile: string | undefined): Promise<void> {
    await this.store.withLock('profile-bindings', async () => {
      const stored = (await this.store.get<Required<ProfileBindings>>('profile-bindings')) ?? { channels: {}, people: {} };
      const next = { ...stored[kind] };
      if (profile === undefined) delete next[key];
      else next[key] = profile;
      await this.store.set('profile-bindings', { ...stored, [kind]: next });
    });
  }
}
