/**
 * The console's profiles: each profile's resources as last loaded (what loaded, what failed, with
 * file and line), and a reload that goes through `reloadProfile`, the code behind the chat's
 * `/reload`, so both report the same way.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReloadReport } from '../../runtime/profile-resources.ts';
import type { McpServerStatus } from '../../tools/mcp/mcp-hub.ts';
import { describeReload, reloadProfile } from '../profile-reload.ts';
import type { AdminGateway } from './admin-routes.ts';

/** A profile as the console shows it. */
export interface ProfileView {
  name: string;
  /** The last load or reload, or undefined when it could not load at all (`error` says why). */
  report?: ReloadReport;
  /** The report in the words of `/reload`. */
  text: string;
  error?: string;
  /** Conversations in memory answering with it. */
  liveConversations: number;
  /** The names of what loaded: skills and knowledge documents. */
  skills: string[];
  knowledge: string[];
  /** Its MCP servers as they stand (read only: `/reload` lists their tools again). */
  mcp: McpServerStatus[];
}

/** Profile names: letters, digits, `-` and `_` (as `assertProfile` takes them). */
const profileName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The console's memory of the last reload of each profile (the runtime keeps only the first load's report). */
export class ProfileReports {
  readonly #reports = new Map<string, ReloadReport>();

  /** Every profile (built in, or in OPERATOR_HOME/profiles), `default` first, each loaded if it was not. */
  async list(gateway: AdminGateway): Promise<ProfileView[]> {
    const names = await profileNames(gateway.runtime.home, gateway.runtime.builtin);
    const live = await gateway.conversations.all();
    const hub = await gateway.runtime.mcp.hub();
    return Promise.all(
      names.map(async (name): Promise<ProfileView> => {
        const liveConversations = live.filter((conversation) => conversation.profile === name).length;
        const mcp = hub?.status(name) ?? [];
        try {
          const loaded = await gateway.runtime.resources(name);
          const report = this.#reports.get(name) ?? loaded.report;
          const skills = loaded.resources.skills.map((skill) => skill.name).sort();
          const knowledge = loaded.resources.knowledge.map((document) => document.name).sort();
          return { name, report, text: describeReload(report), liveConversations, skills, knowledge, mcp };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return { name, text: `Not loaded: ${message}`, error: message, liveConversations, skills: [], knowledge: [], mcp };
        }
      }),
    );
  }

  /** Reloads `name` as `/reload` does; its report (and text) is kept for {@link list}. */
  async reload(gateway: AdminGateway, name: string): Promise<{ report: ReloadReport; text: string }> {
    const result = await reloadProfile(gateway, name);
    this.#reports.set(name, result.report);
    return result;
  }
}

/** The profiles there are, built in and in OPERATOR_HOME, `default` first. */
export async function profileNames(home: string, builtin: string): Promise<string[]> {
  const found = new Set(['default']);
  for (const folder of [join(builtin, 'profiles'), join(home, 'profiles')]) {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory() && profileName.test(entry.name)) found.add(entry.name);
  }
  return [...found].sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a.localeCompare(b)));
}
