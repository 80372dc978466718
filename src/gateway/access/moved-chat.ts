/**
 * A group the platform moved (a Telegram basic group upgraded to a supergroup gets a new id) takes
 * along what was set for it, besides its approval (`group-book.ts`) and its conversation
 * (`moved-conversation.ts`): the scheduled jobs that deliver there, the tool groups an admin granted
 * everyone there from the chat (`/config tools`), and the profile chosen there (`/profile`). What
 * the new chat already has of its own is kept. The old chat takes no more messages, so nothing is
 * left behind for it. Only the platform's own event (`migrate_from_chat_id`, through the adapter's
 * authenticated link) moves anything: a person's message cannot.
 */
import type { ProfileBindingStore } from '../../resources/profile-binding.ts';
import type { Store } from '../../store/store.ts';
import type { ToolGroup } from '../config/schema.ts';
import type { Scheduler } from '../scheduler/index.ts';
import { moveChatGrants } from './chat-grants.ts';
import type { ToolGrants } from './tool-grants.ts';

/** What moving a chat's settings works with. */
export interface MovedChatParts {
  scheduler: Pick<Scheduler, 'load' | 'moveChat'>;
  grants: ToolGrants;
  store: Pick<Store, 'set' | 'delete'>;
  bindings: Pick<ProfileBindingStore, 'bindings' | 'bindChannel'>;
}

/** What went along with a moved chat. */
export interface MovedChat {
  /** The ids of the scheduled jobs that deliver to the new chat now. */
  jobs: string[];
  /** The tool groups granted everyone in the new chat now (none moved: empty). */
  grants: readonly ToolGroup[];
  /** The profile chosen in the chat, now the new chat's. */
  profile?: string;
}

/**
 * Moves what was set for chat `from` of `platform` to chat `to` (its one conversation `sessionKey`).
 * Throws what the store throws (the platform may deliver the event again: what moved already is
 * not found at `from` any more, so nothing moves twice).
 */
export async function moveChat(parts: MovedChatParts, platform: string, from: string, to: { conversationId: string; sessionKey: string }): Promise<MovedChat> {
  // The platform may tell before the scheduler has started: its jobs are read first.
  await parts.scheduler.load();
  const jobs = await parts.scheduler.moveChat(platform, from, to);
  const grants = await moveChatGrants(parts.store, parts.grants, platform, from, to.conversationId);
  // Only a binding made from the chat moves: one in operator.json is the admin's to change.
  const channels = (await parts.bindings.bindings()).channels ?? {};
  const profile = channels[`${platform}:${from}`];
  const moves = profile !== undefined && channels[`${platform}:${to.conversationId}`] === undefined;
  if (moves) {
    await parts.bindings.bindChannel(`${platform}:${to.conversationId}`, profile);
    await parts.bindings.bindChannel(`${platform}:${from}`, undefined);
  }
  return { jobs: jobs.map((job) => job.id), grants, ...(moves && { profile }) };
}

/** A line for the log of what moved (empty when nothing did). */
export function describeMovedChat(moved: MovedChat): string {
  const parts = [
    ...(moved.jobs.length > 0 ? [`${moved.jobs.length} scheduled job${moved.jobs.length === 1 ? '' : 's'} (${moved.jobs.join(', ')})`] : []),
    ...(moved.grants.length > 0 ? [`the tools granted there (${moved.grants.join(', ')})`] : []),
    ...(moved.profile !== undefined ? [`its profile (${moved.profile})`] : []),
  ];
  return parts.join(', ');
}
