/**
 * A profile's resources on Workers, from its bundle in KV: the system prompt assembled as on Node
 * (same layers, caps and platform hints), the `skill`, `knowledge_search` and `memory` tools over
 * the bundle and KV, and the built-in guardrails that mean something without a filesystem.
 * `reload()` reads the bundle again and reports like Node's reload.
 */
import type { Storage } from 'unstorage';
import type { AgentResources } from '../../agent/agent-options.ts';
import type { Extension } from '../../agent/extensions.ts';
import type { Guardrail } from '../../agent/guardrail.ts';
import type { PromptContext, SystemPromptBuilder } from '../../agent/system-prompt.ts';
import { createDoomLoopGuard } from '../../guardrails/doom-loop-guard.ts';
import { createSecretRedactor } from '../../guardrails/secret-redactor.ts';
import { createToolCallCap } from '../../guardrails/tool-call-cap.ts';
import { MemoryFile, defaultMemoryLimit, defaultUserLimit } from '../../memory/memory-file.ts';
import type { MemoryStorage } from '../../memory/memory-storage.ts';
import { platformHint, platformOfChannel } from '../../resources/platform-hints.ts';
import { assembleSystemPrompt, defaultPromptCaps, type AssembledPrompt, type NamedText, type PromptCaps } from '../../resources/prompt-assembly.ts';
import { buildFooter } from '../../resources/prompt-footer.ts';
import { conversationMemoryLayers, memoryLayer, speakerNotesText } from '../../resources/memory-layers.ts';
import type { ConversationMemoryPlace } from '../../memory/conversation-memory.ts';
import type { MemorySeat } from '../../gateway/memory-command.ts';
import { keySegment } from '../../gateway/dedupe.ts';
import type { KnowledgeDocument, Skill } from '../../resources/types.ts';
import { createKnowledgeSearchTool } from '../../tools/resources/knowledge-search.ts';
import { createMemoryTool } from '../../tools/resources/memory.ts';
import type { Tool, TurnContext } from '../../tools/tool.ts';
import { readBundle, type ReadBundle } from './bundle-source.ts';
import { describeChanges } from '../../resources/describe-changes.ts';
import { snapshotOf, type BundleSnapshot } from './bundle-snapshot.ts';
import { reportOf, type WorkerReloadReport } from './reload-report.ts';
import { kvMemoryStorage, memoryKey } from './kv-memory-storage.ts';
import { createWorkerSkillTool } from './worker-skill-tool.ts';

/** How the resources are sized and guarded. */
export interface WorkerResourcesOptions {
  /**
   * The Worker's `env`: the secret-redactor guardrail keeps the secret values of its variables out
   * of tool results (its bindings, objects, are passed over).
   */
  env?: object;
  caps?: PromptCaps;
  /** Character limits of MEMORY.md and USER.md (defaults as on Node). */
  memoryLimits?: { memory: number; user: number };
}

/** What the footer says where Node names folders: there are none on Workers. */
const noFilesystem = 'none (this agent runs on Cloudflare Workers, without a filesystem)';

/** One profile's resources, made from its bundle (see {@link loadWorkerResources}). */
export class WorkerResources implements AgentResources {
  readonly profile: string;
  /** What the last prompt build had to cut (for `/status`). */
  truncations: string[] = [];
  /** The `RESOURCES` namespace, through unstorage (`resourcesStorage`). */
  readonly #kv: Storage;
  readonly #options: WorkerResourcesOptions;
  readonly #storage: MemoryStorage;
  /** Each conversation's own memory, in the same namespace: what seats other than the owner's keep. */
  readonly #conversationMemory: ConversationMemoryPlace;
  readonly #tools: Tool[];
  readonly #guardrails: Guardrail[];
  #snapshot: BundleSnapshot;

  constructor(kv: Storage, profile: string, read: ReadBundle, options: WorkerResourcesOptions = {}) {
    this.#kv = kv;
    this.profile = profile;
    this.#options = options;
    this.#snapshot = snapshotOf(read.bundle);
    const seeds = (): Record<string, string | undefined> => ({
      [memoryKey(profile, 'MEMORY.md')]: this.#snapshot.bundle.memorySeed.memory,
      [memoryKey(profile, 'USER.md')]: this.#snapshot.bundle.memorySeed.user,
    });
    this.#storage = kvMemoryStorage(kv, (location) => seeds()[location]);
    this.#conversationMemory = {
      storage: this.#storage,
      location: (sessionKey, file) => `conversation-memory:${keySegment(sessionKey)}:${file}`,
      personLocation: (person) => `person-memory:${keySegment(person)}:USER.md`,
    };
    this.#tools = [
      createWorkerSkillTool(() => this.#snapshot),
      createKnowledgeSearchTool({ getIndex: () => this.#snapshot.index() }),
      createMemoryTool({
        memoryPath: memoryKey(profile, 'MEMORY.md'),
        userPath: memoryKey(profile, 'USER.md'),
        memoryLimit: options.memoryLimits?.memory,
        userLimit: options.memoryLimits?.user,
        storage: this.#storage,
        conversation: this.#conversationMemory,
      }),
    ];
    // Workspace confinement guards file tools, which Workers do not have; the rest apply as on Node.
    this.#guardrails = [createToolCallCap(), createDoomLoopGuard(), createSecretRedactor({ env: stringsOf(options.env ?? {}) })];
  }

  /** Where this profile's memory and each conversation's and person's are kept, for `/memory` (see `src/gateway/memory-command.ts`). */
  get memoryPlaces(): { profile: MemorySeat['profile']; place: ConversationMemoryPlace } {
    const limits = { memory: this.#options.memoryLimits?.memory ?? defaultMemoryLimit, user: this.#options.memoryLimits?.user ?? defaultUserLimit };
    return { profile: { memoryPath: memoryKey(this.profile, 'MEMORY.md'), userPath: memoryKey(this.profile, 'USER.md'), limits, storage: this.#storage }, place: this.#conversationMemory };
  }

  get skills(): readonly Skill[] {
    return this.#snapshot.skills;
  }

  get knowledge(): readonly KnowledgeDocument[] {
    return this.#snapshot.knowledge;
  }

  /** `skill`, `knowledge_search` and `memory`. */
  tools(): readonly Tool[] {
    return this.#tools;
  }

  /** `tool-call-cap`, `doom-loop` and `secret-redactor`. */
  guardrails(): readonly Guardrail[] {
    return this.#guardrails;
  }

  /** None: extensions are code from OPERATOR_HOME, which is not uploaded. */
  extensions(): readonly Extension[] {
    return [];
  }

  /** The system prompt builder for agents of this profile. */
  readonly systemPrompt: SystemPromptBuilder = (context) => this.buildPrompt(context);

  /** The notes about `turn`'s speaker, to ride along with its model calls (see `src/agent/speaker-notes.ts`). */
  speakerNotes(turn: TurnContext): Promise<string | undefined> {
    return speakerNotesText(this.#conversationMemory, `${turn.platform}:${turn.senderId}`, this.#options.memoryLimits?.user);
  }

  /** Builds the prompt for one channel and records what had to be cut. */
  async buildPrompt(context: PromptContext): Promise<string> {
    const assembled = await this.assemblePrompt(context);
    this.truncations = assembled.truncations;
    return assembled.prompt;
  }

  /** The prompt for one channel with its parts and sizes, as on Node (memory read from KV each time). */
  async assemblePrompt(context: PromptContext): Promise<AssembledPrompt> {
    const { bundle, skills } = this.#snapshot;
    const [memory, user, conversation] = await Promise.all([
      MemoryFile.open(memoryKey(this.profile, 'MEMORY.md'), { limit: this.#options.memoryLimits?.memory ?? defaultMemoryLimit, storage: this.#storage }),
      // The profile's USER.md is the owner's notes: read for the owner's turns only.
      context.owner === false ? undefined : MemoryFile.open(memoryKey(this.profile, 'USER.md'), { limit: this.#options.memoryLimits?.user ?? defaultUserLimit, storage: this.#storage }),
      conversationMemoryLayers(this.#conversationMemory, context.owner === true ? undefined : context.channel, this.#options.memoryLimits),
    ]);
    const append: NamedText[] = [];
    if (bundle.rules.text) append.push({ label: 'rules', text: bundle.rules.text });
    if (bundle.identity.agent) append.push(bundle.identity.agent);
    if (bundle.knowledgeInjection) append.push({ label: 'knowledge', text: bundle.knowledgeInjection });
    const canLoadSkills = context.toolNames.includes('skill') || context.toolNames.includes('read_file');
    return assembleSystemPrompt(
      {
        system: bundle.identity.system,
        soul: bundle.identity.soul,
        append,
        memory: memoryLayer(memory, 'MEMORY'),
        user: user && memoryLayer(user, 'USER'),
        conversation,
        skills: canLoadSkills ? skills : undefined,
        platform: platformHint(platformOfChannel(context.channel)),
        footer: `${buildFooter({ date: context.date, cwd: noFilesystem, home: noFilesystem, sessionId: context.sessionId })}\nProfile: ${this.profile}`,
      },
      this.#options.caps ?? defaultPromptCaps,
    );
  }

  /** Reads the bundle from KV again (whatever the cache holds) and says what changed and what failed. */
  async reload(): Promise<WorkerReloadReport> {
    const previous = this.#snapshot;
    const read = await readBundle(this.#kv, this.profile, { fresh: true });
    this.#snapshot = snapshotOf(read.bundle);
    return { ...reportOf(this.profile, read, this.#guardrails.length), changed: describeChanges(previous.fingerprints, this.#snapshot.fingerprints) };
  }
}

/** The string-valued variables of the Worker's env (bindings such as KV are objects, not secrets). */
function stringsOf(env: object): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
