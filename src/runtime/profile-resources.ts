/**
 * Everything one profile draws from its resource folders: identity files, rules, knowledge,
 * skills, memory, guardrails and extensions, plus the tools that work on them. Loading never
 * fails on a bad file: it is skipped and reported. `reload()` re-reads everything and says what
 * changed and what failed, while what loaded fine keeps working.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Extension } from '../agent/extensions.ts';
import { loadExtensionsFromDirectory } from '../agent/extensions.ts';
import type { Guardrail } from '../agent/guardrail.ts';
import type { PromptContext, SystemPromptBuilder } from '../agent/system-prompt.ts';
import { createBuiltinGuardrails, guardrailFolders, loadGuardrailFiles } from '../guardrails/index.ts';
import { MemoryFile, defaultMemoryLimit, defaultUserLimit } from '../memory/index.ts';
import type { ConversationMemoryPlace } from '../memory/index.ts';
import { createMemoryTool } from '../tools/resources/memory.ts';
import { createKnowledgeSearchTool } from '../tools/resources/knowledge-search.ts';
import { createSkillManageTool } from '../tools/resources/skill-manage.ts';
import { createSkillTool } from '../tools/resources/skill.ts';
import type { Tool, TurnContext } from '../tools/tool.ts';
import { docsReference } from '../resources/docs-reference.ts';
import { createKnowledgeIndex } from '../resources/knowledge-index.ts';
import { loadKnowledge, selectKnowledgeForInjection } from '../resources/knowledge.ts';
import type { ResourceLayers } from '../resources/layers.ts';
import { builtinRoot, fileLayers, profileHome } from '../resources/layers.ts';
import { platformHint, platformOfChannel } from '../resources/platform-hints.ts';
import type { AssembledPrompt, NamedText, PromptCaps } from '../resources/prompt-assembly.ts';
import { assembleSystemPrompt, defaultPromptCaps } from '../resources/prompt-assembly.ts';
import { buildFooter } from '../resources/prompt-footer.ts';
import { conversationMemoryLayers, memoryLayer, speakerNotesText } from '../resources/memory-layers.ts';
import { readTextFile } from '../resources/read-text.ts';
import { envFilePaths, privatePaths } from '../core/private-paths.ts';
import { createRulesLoader } from '../resources/rules.ts';
import { describeChanges } from '../resources/describe-changes.ts';
import { loadSkills } from '../resources/skills.ts';
import type { KnowledgeDocument, ResourceProblem, Skill } from '../resources/types.ts';

/** How to find and size a profile's resources. */
export interface ProfileResourcesOptions {
  profile: string;
  /** OPERATOR_HOME. */
  home: string;
  /** Where the built-in resources ship (default: the repository root). */
  builtin?: string;
  /** The working directory: project rules and guardrails, relative tool paths. */
  cwd: string;
  /** Configured text appended to the prompt (first in the append layer). */
  appendText?: string;
  caps?: PromptCaps;
  /** Character limits of MEMORY.md and USER.md (a conversation's own too). */
  memoryLimits?: { memory: number; user: number };
  /**
   * Where each conversation's own memory is kept (the runtime's store): what the `memory` tool
   * writes from seats other than the owner's, shown in that conversation's prompt. Unset: such
   * writes are refused.
   */
  conversationMemory?: ConversationMemoryPlace;
  /** Environment for the secret redactor (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** What a (re)load found. */
export interface ReloadReport {
  profile: string;
  loaded: { skills: number; knowledge: number; guardrails: number; extensions: number; rulesFiles: number };
  /** Human-readable changes since the previous load, e.g. `skills: +deploy, -old`. */
  changed: string[];
  problems: ResourceProblem[];
}

interface Snapshot {
  system?: NamedText;
  soul?: NamedText;
  agentMd?: NamedText;
  rules: { text: string; files: string[] };
  skills: Skill[];
  knowledge: KnowledgeDocument[];
  knowledgeInjection: string;
  /** Built on the first search: indexing all knowledge costs more than the rest of a load. */
  index: ReturnType<typeof createKnowledgeIndex> | undefined;
  guardrails: Guardrail[];
  extensions: Extension[];
  docs: string | undefined;
  fingerprints: Map<string, string>;
  /** The prompt's append layer, made on the first prompt (see `#appendOf`). */
  promptAppend?: NamedText[];
}

const identityCap = 256 * 1024;

/** One profile's resources. */
export class ProfileResources {
  readonly layers: ResourceLayers;
  readonly options: ProfileResourcesOptions;
  /** What the last prompt build had to cut (for `/status`). */
  truncations: string[] = [];
  #snapshot!: Snapshot;
  #tools: Tool[];
  #rules;

  private constructor(options: ProfileResourcesOptions) {
    this.options = options;
    this.layers = { profile: options.profile, home: options.home, builtin: options.builtin ?? builtinRoot };
    this.#rules = createRulesLoader({ cwd: options.cwd, home: options.home });
    const directory = profileHome(this.layers);
    // Every prompt reads the memory files: their paths are made once, with the profile's.
    this.memoryPath = join(directory, 'MEMORY.md');
    this.userPath = join(directory, 'USER.md');
    this.tempDirectory = join(directory, 'temp');
    this.#tools = [
      createSkillTool({ getSkills: () => this.#snapshot.skills }),
      createSkillManageTool({ skillsDirectory: join(directory, 'skills'), onChange: () => void this.reloadSkills() }),
      createKnowledgeSearchTool({ getIndex: () => (this.#snapshot.index ??= createKnowledgeIndex(this.#snapshot.knowledge)) }),
      createMemoryTool({
        memoryPath: this.memoryPath,
        userPath: this.userPath,
        memoryLimit: options.memoryLimits?.memory,
        userLimit: options.memoryLimits?.user,
        conversation: options.conversationMemory,
      }),
    ];
  }

  /** Loads a profile's resources; `report` says what was found and what failed. */
  static async load(options: ProfileResourcesOptions): Promise<{ resources: ProfileResources; report: ReloadReport }> {
    const resources = new ProfileResources(options);
    const report = await resources.reload();
    return { resources, report: { ...report, changed: [] } };
  }

  /** The profile's MEMORY.md (where the memory tool writes). */
  readonly memoryPath: string;

  /** The profile's USER.md. */
  readonly userPath: string;

  /** The profile's scratch folder, the shell's working directory. */
  readonly tempDirectory: string;

  /** The character limits of every memory file of the profile (a conversation's and a person's too). */
  get memoryLimits(): { memory: number; user: number } {
    return { memory: this.options.memoryLimits?.memory ?? defaultMemoryLimit, user: this.options.memoryLimits?.user ?? defaultUserLimit };
  }

  get skills(): readonly Skill[] {
    return this.#snapshot.skills;
  }

  get knowledge(): readonly KnowledgeDocument[] {
    return this.#snapshot.knowledge;
  }

  /** The tools over these resources: skill, skill_manage, knowledge_search, memory. */
  tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Built-in guardrails plus those from guardrail files. */
  guardrails(): readonly Guardrail[] {
    return this.#snapshot.guardrails;
  }

  /** Extensions from OPERATOR_HOME/extensions. */
  extensions(): readonly Extension[] {
    return this.#snapshot.extensions;
  }

  /** The system prompt builder for agents of this profile. */
  readonly systemPrompt: SystemPromptBuilder = (context) => this.buildPrompt(context);

  /** The notes about `turn`'s speaker, to ride along with its model calls (see `src/agent/speaker-notes.ts`). */
  speakerNotes(turn: TurnContext): Promise<string | undefined> {
    return speakerNotesText(this.options.conversationMemory, `${turn.platform}:${turn.senderId}`, this.options.memoryLimits?.user);
  }

  /** Builds the prompt for one channel (see `prompt-assembly.ts` for the layers). */
  async buildPrompt(context: PromptContext): Promise<string> {
    const assembled = await this.assemblePrompt(context);
    this.truncations = assembled.truncations;
    return assembled.prompt;
  }

  /** The prompt for one channel with its parts and their sizes, as {@link buildPrompt} builds it (nothing is cached or recorded). */
  async assemblePrompt(context: PromptContext): Promise<AssembledPrompt> {
    const snapshot = this.#snapshot;
    const caps = this.options.caps ?? defaultPromptCaps;
    const [memory, user, conversation] = await Promise.all([
      MemoryFile.open(this.memoryPath, { limit: this.options.memoryLimits?.memory ?? defaultMemoryLimit }),
      // The profile's USER.md is the owner's notes: read for the owner's turns only.
      context.owner === false ? undefined : MemoryFile.open(this.userPath, { limit: this.options.memoryLimits?.user ?? defaultUserLimit }),
      conversationMemoryLayers(this.options.conversationMemory, context.owner === true ? undefined : context.channel, this.options.memoryLimits),
    ]);
    const append = (snapshot.promptAppend ??= this.#appendOf(snapshot));
    const canLoadSkills = context.toolNames.includes('skill') || context.toolNames.includes('read_file');
    return assembleSystemPrompt(
      {
        system: snapshot.system,
        soul: snapshot.soul,
        docs: snapshot.docs,
        append,
        memory: memoryLayer(memory, 'MEMORY'),
        user: user && memoryLayer(user, 'USER'),
        conversation,
        skills: canLoadSkills ? snapshot.skills : undefined,
        platform: platformHint(platformOfChannel(context.channel)),
        footer: buildFooter({
          date: context.date,
          cwd: context.cwd,
          home: this.layers.home,
          profile: { name: this.layers.profile, directory: profileHome(this.layers) },
          sessionId: context.sessionId,
        }),
      },
      caps,
    );
  }

  /**
   * The prompt's append layer of `snapshot`: configured text, rules, AGENT.md, knowledge. Made
   * once per snapshot, so the prompt assembly meets the same objects each turn and keeps what it
   * made of them (`prompt-assembly.ts`).
   */
  #appendOf(snapshot: Snapshot): NamedText[] {
    const append: NamedText[] = [];
    if (this.options.appendText) append.push({ label: 'configured append text', text: this.options.appendText });
    if (snapshot.rules.text) append.push({ label: 'rules', text: snapshot.rules.text });
    if (snapshot.agentMd) append.push(snapshot.agentMd);
    if (snapshot.knowledgeInjection) append.push({ label: 'knowledge', text: snapshot.knowledgeInjection });
    return append;
  }

  /** Re-reads everything. Broken files are reported; what loaded fine keeps working. */
  async reload(): Promise<ReloadReport> {
    const problems: ResourceProblem[] = [];
    const previous = this.#snapshot as Snapshot | undefined;
    const readIdentity = async (name: string): Promise<NamedText | undefined> => {
      for (const folder of fileLayers(this.layers)) {
        const path = join(folder.path, name);
        if (!existsSync(path)) continue;
        const read = await readTextFile(path, { maxBytes: identityCap });
        if ('problem' in read) {
          problems.push(read.problem);
          continue;
        }
        return { label: name, text: read.text };
      }
      return undefined;
    };
    const [system, soul, agentMd] = [await readIdentity('SYSTEM.md'), await readIdentity('SOUL.md'), await readIdentity('AGENT.md')];
    this.#rules.reset();
    const rules = await this.#rules.get();
    problems.push(...rules.problems);
    const skills = await loadSkills(this.layers);
    problems.push(...skills.problems);
    const knowledge = await loadKnowledge(this.layers);
    problems.push(...knowledge.problems);
    const fileGuardrails = loadGuardrailFiles(guardrailFolders(this.layers, this.options.cwd));
    problems.push(...fileGuardrails.problems);
    const loadedExtensions = await loadExtensionsFromDirectory(join(this.layers.home, 'extensions'), { fresh: previous !== undefined });
    for (const failure of loadedExtensions.failures) problems.push({ file: failure.extension, message: failure.message });

    const builtinGuardrails = createBuiltinGuardrails({
      roots: [this.options.cwd, profileHome(this.layers)],
      hidden: privatePaths(this.layers.home, this.options.cwd),
      env: this.options.env,
      envFiles: envFilePaths(this.options.cwd, this.layers.home),
    });
    // Built-ins are not replaceable by files: a checked-out project must not be able to switch
    // off, say, workspace confinement with a file of the same name.
    const reserved = new Set(builtinGuardrails.map((guardrail) => guardrail.name));
    for (const guardrail of fileGuardrails.guardrails.filter((candidate) => reserved.has(candidate.name))) {
      problems.push({ file: guardrail.file, message: `"${guardrail.name}" is the name of a built-in guardrail; rename the file (built-ins cannot be replaced)` });
    }
    const snapshot: Snapshot = {
      system,
      soul,
      agentMd,
      rules: { text: rules.text, files: rules.files },
      skills: skills.skills,
      knowledge: knowledge.documents,
      knowledgeInjection: selectKnowledgeForInjection(knowledge.documents).text,
      index: undefined,
      guardrails: [...builtinGuardrails, ...fileGuardrails.guardrails.filter((guardrail) => !reserved.has(guardrail.name))],
      extensions: loadedExtensions.extensions,
      docs: docsReference(this.layers.builtin),
      fingerprints: new Map(),
    };
    fingerprint(snapshot);
    this.#snapshot = snapshot;
    return {
      profile: this.layers.profile,
      loaded: {
        skills: snapshot.skills.length,
        knowledge: snapshot.knowledge.length,
        guardrails: snapshot.guardrails.length,
        extensions: snapshot.extensions.length,
        rulesFiles: rules.files.length,
      },
      changed: previous ? describeChanges(previous.fingerprints, snapshot.fingerprints) : [],
      problems,
    };
  }

  /** Re-reads only the skills (after skill_manage wrote one). */
  async reloadSkills(): Promise<void> {
    const skills = await loadSkills(this.layers);
    this.#snapshot = { ...this.#snapshot, skills: skills.skills };
    fingerprint(this.#snapshot);
  }
}

/** Records a comparable fingerprint of every resource, by kind and name. */
function fingerprint(snapshot: Snapshot): void {
  const map = new Map<string, string>();
  for (const item of [snapshot.system, snapshot.soul, snapshot.agentMd]) if (item) map.set(`file:${item.label}`, item.text);
  if (snapshot.rules.text) map.set('file:rules', snapshot.rules.text);
  for (const skill of snapshot.skills) map.set(`skills:${skill.name}`, `${skill.location}\n${skill.description}`);
  for (const document of snapshot.knowledge) map.set(`knowledge:${document.name}`, document.text);
  for (const guardrail of snapshot.guardrails) map.set(`guardrails:${guardrail.name}`, guardrail.name);
  for (const extension of snapshot.extensions) map.set(`extensions:${extension.name}`, extension.name);
  snapshot.fingerprints = map;
}
