/**
 * The platforms' native command menus (Telegram's, Discord's slash commands): the gateway's own
 * commands, then the skills a person may start (`user-invocable: true`) of the default profile,
 * which most conversations use and which the menus, being one per bot, can show. A conversation
 * bound to another profile can still type its own skills' commands; `/help` lists them there. A
 * skill a gateway command of the same name hides is left out and logged. A menu holds at most
 * {@link menuLimit} commands. Each adapter's menu is registered again only when it changed (after
 * an admin's `/reload`).
 */
import type { ChannelAdapter, CommandInfo } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import { shadowedNote, shadowedSkills, skillCommands } from '../resources/skill-invocation.ts';
import type { Skill } from '../resources/types.ts';

/** Most commands a menu takes: Telegram's and Discord's (global commands) limit alike. */
export const menuLimit = 100;

/**
 * The menu: `commands` (the gateway's), then the skills of `skills` that are commands, by name;
 * at most `limit` entries, the gateway's first. Descriptions are passed as they are (each adapter
 * fits them to its platform).
 */
export function buildCommandMenu(commands: readonly CommandInfo[], skills: readonly Skill[], limit = menuLimit): CommandInfo[] {
  const fromSkills = skillCommands(skills, commands.map((command) => command.name)).map((skill) => ({ name: skill.name, description: skill.description }));
  return [...commands, ...fromSkills].slice(0, limit);
}

/** What {@link CommandMenus} works with. */
export interface CommandMenusOptions {
  /** The gateway's own commands. */
  commands: readonly CommandInfo[];
  /** The skills the menus list: the default profile's. */
  skills(): Promise<readonly Skill[]>;
  log(line: string): void;
}

/** Registers the menus and keeps them current. */
export class CommandMenus {
  readonly #options: CommandMenusOptions;
  /** The menu last registered, per platform (as JSON). */
  readonly #registered = new Map<string, string>();
  /** The shadowed skills last logged, so a rebuild logs only news. */
  #shadowed = '';
  /** Updates run one after another. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: CommandMenusOptions) {
    this.#options = options;
  }

  /**
   * Builds the menu and registers it with each of `adapters` that has a menu and does not show it
   * already. Resolves to the platforms whose menu was (re)registered; never rejects (failures are
   * logged: the menu is a convenience).
   */
  update(adapters: Iterable<ChannelAdapter>): Promise<string[]> {
    const targets = [...adapters];
    const run = this.#queue.then(() => this.#update(targets));
    this.#queue = run;
    return run;
  }

  async #update(adapters: ChannelAdapter[]): Promise<string[]> {
    const { log } = this.#options;
    const menu = await this.#menu();
    const key = JSON.stringify(menu);
    const updated: string[] = [];
    await Promise.all(
      adapters.map(async (adapter) => {
        if (!adapter.capabilities.commandMenu || !adapter.setCommands || this.#registered.get(adapter.platform) === key) return;
        try {
          await adapter.setCommands(menu);
          this.#registered.set(adapter.platform, key);
          updated.push(adapter.platform);
        } catch (error) {
          log(`${adapter.platform}: could not register commands: ${errorMessage(error)}`);
        }
      }),
    );
    return updated.sort();
  }

  /** The menu now; logs skills hidden by a command, and those the limit leaves out. */
  async #menu(): Promise<CommandInfo[]> {
    const { commands, log } = this.#options;
    let skills: readonly Skill[] = [];
    try {
      skills = await this.#options.skills();
    } catch (error) {
      log(`operator: the command menus list no skills: the default profile could not be loaded: ${errorMessage(error)}`);
    }
    const shadowed = shadowedSkills(skills, commands.map((command) => command.name));
    const names = shadowed.map((skill) => skill.name).join(',');
    if (names !== this.#shadowed) for (const skill of shadowed) log(`operator: ${shadowedNote(skill, 'default')}`);
    this.#shadowed = names;
    const menu = buildCommandMenu(commands, skills);
    const wanted = commands.length + skillCommands(skills, commands.map((command) => command.name)).length;
    if (wanted > menu.length) log(`operator: ${wanted - menu.length} skill commands left out of the command menus (at most ${menuLimit} commands); they still work when typed`);
    return menu;
  }
}
