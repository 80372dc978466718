/**
 * Untrusted content cannot pull the trigger. A turn is tainted once its context holds content no
 * person of the turn's own seat wrote: a web page (`web_fetch`, the browser), other people's
 * messages in a group. In a tainted turn a tool call that acts (changes files, runs commands,
 * submits in a page, schedules, sends a file) needs a person's yes even where the seat has the
 * tool (`approve`, the default), or is refused (`block`); `off` checks nothing. The approval
 * question names what tainted the turn. This is a second line behind the sandbox and the seat's
 * grants, never instead of them: it keeps text the model read from choosing what runs.
 */
import type { ToolCallPart } from '../llm/types.ts';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Tool, TurnContext } from './tool.ts';

/** What a tainted turn does with a call that acts: ask a person, refuse it, or nothing. */
export type TaintMode = 'approve' | 'block' | 'off';

/** The taint modes, for config validation. */
export const taintModes: readonly TaintMode[] = ['approve', 'block', 'off'];

/** The source a group turn has when others spoke in it (or in an earlier turn of the session). */
export const otherPeopleSource = 'messages from other people in this group';

/**
 * What of `taint` is content no person wrote (a web page, another bot's message), as opposed to
 * other people's words: what memory keeps apart (see `src/memory/held-memory.ts`). Empty when
 * nothing is tracked or `taint.mode` is off.
 */
export function untrustedContent(taint: TurnTaint | undefined): readonly string[] {
  if (!taint || taint.mode === 'off') return [];
  return taint.sources.filter((source) => source !== otherPeopleSource);
}

/** What a group's own folder brings in when other people talked there (see `TurnContext.sharedFiles`). */
export const sharedFilesSource = 'files people sent in this group';

/**
 * What reading `path` (a file or a folder searched) brings into `turn`'s context: the files other
 * people sent, when it lies in the conversation's own folder or holds it; else nothing. Worked out
 * from the path's text alone (nothing is opened): the tool itself reads in its sandbox.
 */
export function sharedFileSource(turn: TurnContext | undefined, path: unknown): string | undefined {
  const shared = turn?.sharedFiles;
  if (!shared) return undefined;
  const target = resolve(turn.workspace?.cwd ?? shared.folder, typeof path === 'string' && path !== '' ? path : '.');
  const within = (inner: string, outer: string) => {
    const between = relative(outer, inner);
    return between === '' || (!between.startsWith('..') && !isAbsolute(between));
  };
  return within(target, shared.folder) || within(shared.folder, target) ? shared.source : undefined;
}

/** How many sources an approval question names; the rest are counted. */
const namedSources = 3;

/**
 * What untrusted content a turn's context holds (shared by the turn's tools, its subagents and
 * the gateway, which keeps it with the session). Sources are short descriptions, kept once each.
 */
export class TurnTaint {
  readonly mode: TaintMode;
  readonly #sources: string[];
  readonly #onAdd: ((source: string) => Promise<void> | void) | undefined;
  #kept: Promise<void> = Promise.resolve();

  /** `onAdd` keeps a new source (the gateway writes it with the session); {@link kept} waits for it. */
  constructor(mode: TaintMode, sources: readonly string[] = [], onAdd?: (source: string) => Promise<void> | void) {
    this.mode = mode;
    this.#sources = [...new Set(sources)];
    this.#onAdd = onAdd;
  }

  /** Notes that the context now holds `source` (a no-op for one already noted). */
  add(source: string): void {
    if (this.#sources.includes(source)) return;
    this.#sources.push(source);
    const keeping = this.#onAdd?.(source);
    if (keeping) this.#kept = this.#kept.then(() => keeping);
  }

  /** Resolves once every source added so far is kept (the result that brought it waits for this). */
  kept(): Promise<void> {
    return this.#kept;
  }

  /** Whether the context holds anything untrusted. */
  get tainted(): boolean {
    return this.#sources.length > 0;
  }

  get sources(): readonly string[] {
    return this.#sources;
  }

  /** `a; b; and c (and 2 more)`: what tainted the turn, at most three named, for an approval question. */
  describe(): string {
    const named = this.#sources.slice(0, namedSources);
    const more = this.#sources.length - named.length;
    const list = named.length > 1 ? `${named.slice(0, -1).join('; ')}; and ${named.at(-1)}` : (named[0] ?? 'nothing');
    return more > 0 ? `${list} (and ${more} more)` : list;
  }
}

/** Whether `call` of `tool` acts: the tool says (`acts`), else by what it does to the machine. */
export function callActs(tool: Tool | undefined, call: ToolCallPart): boolean {
  if (tool === undefined) return true;
  if (typeof tool.acts === 'function') return tool.acts(call.arguments);
  if (typeof tool.acts === 'boolean') return tool.acts;
  return tool.machine === undefined || tool.machine === 'write' || tool.machine === 'shell' || tool.machine === 'desktop';
}

/** What a tainted turn decides for `call`: nothing (it may run), ask a person, or refuse. */
export function taintDecision(taint: TurnTaint | undefined, tool: Tool | undefined, call: ToolCallPart): { action: 'ask' | 'block'; reason: string } | undefined {
  if (!taint || taint.mode === 'off' || !taint.tainted || !callActs(tool, call)) return undefined;
  const why = `this turn read untrusted content (${taint.describe()}), and \`${call.name}\` acts`;
  return taint.mode === 'block' ? { action: 'block', reason: `${why}: refused (taint.mode is block). Tell the person what you would do; a fresh conversation (/new) holds nothing untrusted.` } : { action: 'ask', reason: why };
}

/**
 * Notes in `taint` what untrusted content `call`'s result brought into the context, if any, and
 * resolves once that is kept: the result reaches the model (and the session) only after, so a
 * crash in between cannot leave a session holding a page its record does not name. A failed call
 * counts too: its error may carry the page it got.
 */
export async function noteSource(taint: TurnTaint | undefined, tool: Tool | undefined, call: ToolCallPart, turn?: TurnContext): Promise<void> {
  if (!taint || !tool?.untrustedSource) return;
  const source = tool.untrustedSource(call.arguments, turn);
  if (!source) return;
  taint.add(source);
  await taint.kept();
}
