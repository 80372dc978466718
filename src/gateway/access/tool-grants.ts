/**
 * Who may use the tools that act on the machine. The owner's own seats (an admin's direct
 * messages, the terminal, a web chat reachable from this machine alone) get every tool. Everyone
 * else, and every group, gets the conversation's own tools (memory, skills, knowledge search,
 * schedule) and file reading inside the conversation's own folder (the documents people sent
 * there), plus whatever `tools.grants` in operator.json adds for that person, chat or platform,
 * and what an admin granted everyone in a chat from the chat (`/config tools`, kept in the store).
 * `shell` goes to no one but the owner when commands cannot be sandboxed.
 */
import type { ToolGrant } from '../config/gateway-config.ts';
import { toolGroups, type ToolGroup } from '../config/schema.ts';

/** Where a turn happens and whose it is, as grants see it. */
export interface ToolSeat {
  platform: string;
  scope: 'dm' | 'group';
  conversationId: string;
  threadId?: string;
  senderId: string;
  /** The sender is one of the configured admins. */
  admin: boolean;
}

/** What a seat may use. */
export interface SeatTools {
  /** The owner's own conversation: every tool, the whole workspace. */
  owner: boolean;
  /**
   * Machine tool groups granted beyond the owner's seats. `read` absent means reading only inside
   * the conversation's own folder; any group present opens the workspace.
   */
  groups: ReadonlySet<ToolGroup>;
}

/** Options of {@link ToolGrants}. */
export interface ToolGrantsOptions {
  grants: readonly ToolGrant[];
  /** The web chat needs no login and is reachable from this machine alone: its people are the owner. */
  localWeb: boolean;
  /** Commands run in a sandbox; without one, `shell` is the owner's alone. */
  sandboxed: boolean;
}

const allGroups: readonly ToolGroup[] = toolGroups;
/**
 * What a grant of `"all"` gives: every group but `desktop`, which drives this machine's own
 * display outside any sandbox (as good as the owner's shell), so it is only ever granted by name.
 */
const grantedByAll: readonly ToolGroup[] = toolGroups.filter((group) => group !== 'desktop');
const none: ReadonlySet<ToolGroup> = new Set();

/**
 * Decides, per turn, which machine tools a seat gets.
 *
 * @example
 * const grants = new ToolGrants({ grants: config.tools.grants, localWeb: false, sandboxed: true });
 * grants.seatTools({ platform: 'telegram', scope: 'group', conversationId: '-100', senderId: '7', admin: false });
 * // { owner: false, groups: Set {} }
 */
export class ToolGrants {
  readonly #grants: readonly ToolGrant[];
  readonly #localWeb: boolean;
  readonly #sandboxed: boolean;
  /** One frozen set per combination, so seats with the same rights share it (and its cache entries). */
  readonly #sets = new Map<string, ReadonlySet<ToolGroup>>();
  /** What an admin granted everyone in a chat from the chat (`/config tools`), by `platform:conversationId`. */
  readonly #chats = new Map<string, readonly ToolGroup[]>();

  constructor(options: ToolGrantsOptions) {
    this.#grants = options.grants;
    this.#localWeb = options.localWeb;
    this.#sandboxed = options.sandboxed;
  }

  /** Whether some grant gives `shell` to someone other than the owner (and it can be honoured). */
  get shellBeyondOwner(): boolean {
    return this.#sandboxed && this.#grants.some((grant) => groupsOf(grant).includes('shell'));
  }

  /** Grants of `shell` that cannot be honoured because commands are not sandboxed (for the start-up output). */
  get withheldShellGrants(): number {
    return this.#sandboxed ? 0 : this.#grants.filter((grant) => groupsOf(grant).includes('shell')).length;
  }

  /** The groups granted everyone in the chat `platform:conversationId` from the chat (see `chat-grants.ts`). */
  chatGroups(platform: string, conversationId: string): readonly ToolGroup[] {
    return this.#chats.get(`${platform}:${conversationId}`) ?? [];
  }

  /** Sets what {@link chatGroups} answers (in memory: `chat-grants.ts` keeps it in the store first). */
  setChatGroups(platform: string, conversationId: string, groups: readonly ToolGroup[]): void {
    const key = `${platform}:${conversationId}`;
    if (groups.length === 0) this.#chats.delete(key);
    else this.#chats.set(key, allGroups.filter((group) => groups.includes(group)));
  }

  /** The tools of one seat. */
  seatTools(seat: ToolSeat): SeatTools {
    if (isOwnerSeat(seat, this.#localWeb)) return { owner: true, groups: this.#set(allGroups) };
    const chat = this.#chats.get(`${seat.platform}:${seat.conversationId}`);
    if (this.#grants.length === 0 && chat === undefined) return { owner: false, groups: none };
    const granted = new Set<ToolGroup>(chat);
    for (const grant of this.#grants) if (applies(grant, seat)) for (const group of groupsOf(grant)) granted.add(group);
    if (!this.#sandboxed) granted.delete('shell');
    return { owner: false, groups: this.#set(allGroups.filter((group) => granted.has(group))) };
  }

  #set(groups: readonly ToolGroup[]): ReadonlySet<ToolGroup> {
    const key = groups.join(',');
    let set = this.#sets.get(key);
    if (!set) {
      set = new Set(groups);
      this.#sets.set(key, set);
    }
    return set;
  }
}

/** An admin in their own direct messages, or anyone in a web chat that only this machine reaches. */
export function isOwnerSeat(seat: Pick<ToolSeat, 'platform' | 'scope' | 'admin'>, localWeb: boolean): boolean {
  if (seat.platform === 'web') return localWeb || (seat.scope === 'dm' && seat.admin);
  return seat.scope === 'dm' && seat.admin;
}

function groupsOf(grant: ToolGrant): readonly ToolGroup[] {
  return grant.tools === 'all' ? grantedByAll : grant.tools;
}

/** Every selector the grant names matches the seat. */
function applies(grant: ToolGrant, seat: ToolSeat): boolean {
  if (grant.scope !== 'any' && grant.scope !== seat.scope) return false;
  if (grant.platforms && !grant.platforms.some((platform) => platform === seat.platform)) return false;
  if (grant.people && !grant.people.includes(`${seat.platform}:${seat.senderId}`)) return false;
  if (grant.chats) {
    const chat = `${seat.platform}:${seat.conversationId}`;
    const thread = seat.threadId === undefined ? undefined : `${chat}:${seat.threadId}`;
    if (!grant.chats.some((entry) => entry === chat || entry === thread)) return false;
  }
  return true;
}
