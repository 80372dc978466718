/**
 * The entries of one session in memory: every entry's place in the tree (id, parent, type) is
 * known from loading, while its content is parsed from its record on first use. Rebuilding a
 * context then parses only what the context holds (after the latest compaction), so reopening
 * a long session costs little more than reading its file.
 */
import { entryShapeProblem } from './entry-shape.ts';
import type { SessionEntry } from './types.ts';

interface Node {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: SessionEntry['type'];
  /** The parsed entry, once used. */
  entry: SessionEntry | undefined;
  /** The record, until parsed. */
  line: string | undefined;
}

/** Entries by id, in the order written, parsed lazily. */
export class EntryIndex {
  private readonly nodes = new Map<string, Node>();
  private readonly order: Node[] = [];
  /** Every entry parsed, once {@link all} has been asked for. */
  private everything: SessionEntry[] | undefined;
  private messages = 0;

  constructor(
    private readonly sessionId: string,
    private readonly onWarning: (message: string) => void,
  ) {}

  get size(): number {
    return this.order.length;
  }

  get messageCount(): number {
    return this.messages;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** Adds a parsed entry. The caller checked its id is new and its parent known. */
  add(entry: SessionEntry): void {
    this.insert({ id: entry.id, parentId: entry.parentId, type: entry.type, entry, line: undefined });
    this.everything?.push(entry);
  }

  /** Adds an entry known by the start of its record; the rest is parsed on first use. */
  addRecord(id: string, parentId: string | null, type: SessionEntry['type'], line: string): void {
    this.insert({ id, parentId, type, entry: undefined, line });
    this.everything = undefined;
  }

  get(id: string): SessionEntry | undefined {
    const node = this.nodes.get(id);
    return node && this.parse(node);
  }

  first(): SessionEntry | undefined {
    const node = this.order[0];
    return node && this.parse(node);
  }

  /** Every entry, in the order written. */
  all(): readonly SessionEntry[] {
    this.everything ??= this.order.map((node) => this.parse(node));
    return this.everything;
  }

  /**
   * Entries from the root to `id` (empty for `null`).
   *
   * @throws Error when `id` is unknown.
   */
  pathTo(id: string | null): SessionEntry[] {
    return this.nodePath(id).map((node) => this.parse(node));
  }

  /**
   * The part of the path to `id` a context is built from: everything from the latest
   * compaction's first kept entry on (from the compaction itself when that entry is not on the
   * path), preceded by the model changes before it. Gives the same context as the whole path
   * while parsing only what the context holds.
   */
  contextPathTo(id: string | null): SessionEntry[] {
    const path = this.nodePath(id);
    let compaction = -1;
    for (let index = path.length - 1; index >= 0; index--) {
      if (path[index]!.type === 'compaction') {
        compaction = index;
        break;
      }
    }
    if (compaction === -1) return path.map((node) => this.parse(node));
    const entry = this.parse(path[compaction]!);
    let start = compaction;
    if (entry.type === 'compaction') {
      const kept = path.findIndex((node, index) => index < compaction && node.id === entry.firstKeptEntryId);
      if (kept !== -1) start = kept;
    }
    const result: SessionEntry[] = [];
    for (let index = 0; index < start; index++) if (path[index]!.type === 'model_change') result.push(this.parse(path[index]!));
    for (let index = start; index < path.length; index++) result.push(this.parse(path[index]!));
    return result;
  }

  private nodePath(id: string | null): Node[] {
    if (id === null) return [];
    let node = this.nodes.get(id);
    if (!node) throw new Error(`Session ${this.sessionId} has no entry ${id}`);
    const path: Node[] = [];
    while (node) {
      path.push(node);
      node = node.parentId === null ? undefined : this.nodes.get(node.parentId);
    }
    return path.reverse();
  }

  private insert(node: Node): void {
    this.nodes.set(node.id, node);
    this.order.push(node);
    if (node.type === 'message') this.messages++;
  }

  private parse(node: Node): SessionEntry {
    if (node.entry) return node.entry;
    let entry: SessionEntry | undefined;
    try {
      const value = JSON.parse(node.line!) as SessionEntry;
      if (value.id === node.id && value.parentId === node.parentId && value.type === node.type && !entryShapeProblem(value)) entry = value;
    } catch {
      // reported below
    }
    if (!entry) {
      // Its place in the tree is known, so it stays there, emptied, rather than cutting the branch.
      this.onWarning(`Session ${this.sessionId}: entry ${node.id} is unreadable; it is kept as an empty custom entry`);
      entry = { type: 'custom', customType: 'unreadable', data: null, id: node.id, parentId: node.parentId, timestamp: 0 };
    }
    node.entry = entry;
    node.line = undefined;
    return entry;
  }
}
