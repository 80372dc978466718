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
