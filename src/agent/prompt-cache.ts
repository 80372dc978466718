/**
 * The system prompts an Agent has built, and the tool lists its turns offer. A prompt is kept per
 * channel, working directory, offered tools and whether the seat is an owner's, and for the day it
 * names, so a conversation's requests keep their bytes from turn to turn (the provider's prompt
 * cache) until resources change.
 */
import type { Tool, TurnContext } from '../tools/tool.ts';
import type { PromptContext, SystemPromptBuilder } from './system-prompt.ts';
import { today } from './system-prompt.ts';

/** Prompts and offers of one agent. */
export class PromptCache {
  #prompts = new Map<string, { date: string; prompt: string }>();
  /** Offered tool lists per set of names, for one list of all tools. */
  #offers = new WeakMap<ReadonlySet<string>, { from: readonly Tool[]; tools: readonly Tool[] }>();

  /**
   * The tools a turn offers out of `all`: those named in `turn.tools` (the gateway's grants), else
   * all. The list is kept per set of names, so a conversation's turns share one (and its definitions).
   */
  offered(all: readonly Tool[], turn: TurnContext | undefined): readonly Tool[] {
    const names = turn?.tools;
    if (!names) return all;
    const known = this.#offers.get(names);
    if (known && known.from === all) return known.tools;
    const tools = all.filter((tool) => names.has(tool.name));
    this.#offers.set(names, { from: all, tools });
    return tools;
  }

  /** The prompt `builder` makes for this channel, directory, tools and seat, built once a day. */
  async prompt(builder: SystemPromptBuilder, context: Omit<PromptContext, 'date' | 'toolNames'> & { tools: readonly Tool[] }): Promise<string> {
    const toolNames = context.tools.map((tool) => tool.name);
    const key = `${context.channel ?? ''}\u0000${context.cwd}\u0000${toolNames.join(',')}\u0000${context.owner === true ? 'owner' : ''}`;
    const date = today();
    const cached = this.#prompts.get(key);
    if (cached && cached.date === date) return cached.prompt;
    const prompt = await builder({ channel: context.channel, sessionId: context.sessionId, cwd: context.cwd, date, toolNames, owner: context.owner });
    this.#prompts.set(key, { date, prompt });
    return prompt;
  }

  /** Forgets the prompts of `channel` (every channel's when omitted). */
  invalidate(channel?: string): void {
    if (channel === undefined) this.#prompts.clear();
    else for (const key of this.#prompts.keys()) if (key.startsWith(`${channel}\u0000`)) this.#prompts.delete(key);
  }

  /** Gives `child` these prompts, so its requests repeat the same bytes. */
  shareWith(child: PromptCache): void {
    for (const [key, value] of this.#prompts) child.#prompts.set(key, value);
  }
}
