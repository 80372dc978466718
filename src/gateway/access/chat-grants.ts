/**
 * Tool groups an admin grants everyone in one chat from the chat itself (`/config tools GROUP
 * on`), without editing operator.json: kept in the store (`chat-tools:<platform:conversationId>`),
 * read into the gateway's {@link ToolGrants} at start, and written there before memory, so a
 * grant the store did not take is not in force either. They add to `tools.grants`; `shell` still
 * needs the sandbox.
 */
import type { Store } from '../../store/store.ts';
import { toolGroups, type ToolGroup } from '../config/schema.ts';
import { keySegment } from '../dedupe.ts';
import type { ToolGrants } from './tool-grants.ts';

const prefix = 'chat-tools:';

interface StoredChatGrant {
  platform: string;
  conversationId: string;
  groups: ToolGroup[];
}

/** Reads every chat's grants from `store` into `grants` (a damaged record grants nothing). */
export async function loadChatGrants(store: Pick<Store, 'list' | 'get'>, grants: ToolGrants): Promise<void> {
  for (const key of await store.list(prefix)) {
    const stored = await store.get<unknown>(key);
    if (!isStoredChatGrant(stored)) continue;
    grants.setChatGroups(stored.platform, stored.conversationId, stored.groups);
  }
}

/** Grants `groups` (none: takes every grant back) to everyone in the chat, store first. */
export async function saveChatGrants(store: Pick<Store, 'set' | 'delete'>, grants: ToolGrants, platform: string, conversationId: string, groups: readonly ToolGroup[]): Promise<void> {
  const key = `${prefix}${keySegment(`${platform}:${conversationId}`)}`;
  const kept = toolGroups.filter((group) => groups.includes(group));
  if (kept.length === 0) await store.delete(key);
  else await store.set(key, { platform, conversationId, groups: kept } satisfies StoredChatGrant);
  grants.setChatGroups(platform, conversationId, kept);
}

function isStoredChatGrant(value: unknown): value is StoredChatGrant {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<StoredChatGrant>;
  return (
    typeof record.platform === 'string' &&
    typeof record.conversationId === 'string' &&
    Array.isArray(record.groups) &&
    record.groups.every((group) => (toolGroups as readonly unknown[]).includes(group))
  );
}

/**
 * Moves the grants of chat `from` to chat `to` of `platform` (the platform gave the chat a new id:
 * a Telegram group made a supergroup), store first; a chat `to` with grants of its own keeps them.
 * Resolves to the groups moved (none: nothing was granted there, or `to` had its own).
 */
export async function moveChatGrants(store: Pick<Store, 'set' | 'delete'>, grants: ToolGrants, platform: string, from: string, to: string): Promise<readonly ToolGroup[]> {
  const groups = grants.chatGroups(platform, from);
  if (groups.length === 0 || grants.chatGroups(platform, to).length > 0) return [];
  await saveChatGrants(store, grants, platform, to, groups);
  await saveChatGrants(store, grants, platform, from, []);
  return groups;
}
