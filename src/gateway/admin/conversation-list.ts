/**
 * The console's conversations page: every conversation the gateway has talked in (the known
 * conversations on record), with its platform, a title, its profile, its last activity, and the
 * turns, tokens and cost the usage ledger counted for it. Searched and cut on the server, so a
 * gateway with thousands of conversations sends one page of them.
 */
import type { KnownConversation } from '../known-conversations.ts';
import { formatAddress } from '../known-conversations.ts';
import { boundProfile } from '../conversations.ts';
import type { AdminGateway } from './admin-routes.ts';
import type { UsageLedger } from './usage-ledger.ts';

/** One conversation as the console lists it. */
export interface ConversationSummary {
  /** The session key. */
  key: string;
  platform: string;
  scope: 'dm' | 'group';
  /** `platform:conversation[:thread]`, as `operator schedule add --to` takes it. */
  address: string;
  title: string;
  profile: string;
  /** The last message or model call (ms since the epoch), when known. */
  lastActivity: number | null;
  turns: number;
  /** Every token of every model call: input, output, and cache reads and writes. */
  tokens: number;
  costUsd: number;
  /** The background reviewer's share of `costUsd`. */
  reviewCostUsd: number;
  /** Whether the conversation is in memory now. */
  live: boolean;
}

/** What {@link listConversations} answers. */
export interface ConversationPage {
  /** Conversations on record. */
  total: number;
  /** Those the search matched. */
  matched: number;
  /** The first `limit` of them, the most recently active first. */
  conversations: ConversationSummary[];
}

/**
 * The conversations matching `search` (case-insensitive, in key, title, profile and platform),
 * the most recently active first, at most `limit` (default 200).
 */
export async function listConversations(gateway: AdminGateway, ledger: UsageLedger, query: { search?: string; limit?: number } = {}): Promise<ConversationPage> {
  const [known, totals, live, bindings, pairings] = await Promise.all([
    gateway.known.all(),
    ledger.totals(),
    gateway.conversations.all(),
    gateway.runtime.bindings.bindings(gateway.config.profiles),
    gateway.access.listPairings().catch(() => ({ pending: [], approved: [] })),
  ]);
  const liveProfiles = new Map(live.map((conversation) => [conversation.key, conversation.profile]));
  const names = new Map<string, string>();
  for (const person of [...pairings.pending, ...pairings.approved]) if (person.name) names.set(`${person.platform}:${person.userId}`, person.name);

  const summaries = known.map((conversation): ConversationSummary => {
    const usage = totals.get(conversation.sessionKey);
    const lastActivity = Math.max(conversation.lastMessageAt ?? 0, usage?.lastAt ?? 0);
    return {
      key: conversation.sessionKey,
      platform: conversation.address.platform,
      scope: conversation.scope,
      address: formatAddress(conversation.address),
      title: titleOf(conversation, names),
      // The profile answering now, else the one its last turn ran with, else the one its bindings choose.
      profile: liveProfiles.get(conversation.sessionKey) ?? (usage?.profile || boundProfile(conversation, conversation.address.conversationId, bindings)),
      lastActivity: lastActivity > 0 ? lastActivity : null,
      turns: usage?.turns ?? 0,
      tokens: usage?.tokens ?? 0,
      costUsd: usage?.costUsd ?? 0,
      reviewCostUsd: usage?.reviewCostUsd ?? 0,
      live: liveProfiles.has(conversation.sessionKey),
    };
  });
  const needle = query.search?.trim().toLowerCase() ?? '';
  const matched = needle === '' ? summaries : summaries.filter((summary) => [summary.key, summary.title, summary.profile, summary.platform, summary.address].some((field) => field.toLowerCase().includes(needle)));
  matched.sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0) || a.key.localeCompare(b.key));
  return { total: summaries.length, matched: matched.length, conversations: matched.slice(0, Math.max(1, query.limit ?? 200)) };
}

/**
 * A title people recognise: the person's name for a direct message when pairing recorded it,
 * else the kind of conversation and its id on the platform.
 */
function titleOf(conversation: KnownConversation, names: ReadonlyMap<string, string>): string {
  const { platform, conversationId, threadId } = conversation.address;
  const thread = threadId === undefined ? '' : `, thread ${threadId}`;
  if (platform === 'web') return `web chat ${conversationId.slice(0, 8)}`;
  if (conversation.scope === 'dm') {
    const name = names.get(`${platform}:${conversationId}`);
    return name ? `${name} (direct messages)` : `direct messages ${conversationId}${thread}`;
  }
  return `group ${conversationId}${thread}`;
}
