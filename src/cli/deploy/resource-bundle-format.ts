/**
 * The resource bundle: what `operator deploy resources` uploads to the Worker's KV namespace
 * `RESOURCES` and the Worker reads back (`src/worker/resources/`). One JSON value per profile
 * under `profile:<name>`, and the index under `profiles`. Plain data and no imports with effects:
 * the Worker imports this file too, and has no filesystem.
 *
 * Paths in a bundle are labels, relative to the profile's resources as a whole (`skills/deploy/
 * SKILL.md`, `knowledge/runbook.md`): the machine that built the bundle is not where it is read.
 */
import type { NamedText } from '../../resources/prompt-assembly.ts';
import type { ResourceProblem, ResourceSource } from '../../resources/types.ts';

/** The bundle layout's version; a Worker refuses a bundle of another one (and says to redeploy). */
export const bundleFormat = 1;

/** The KV key of the index. */
export const profilesKey = 'profiles';

/** The KV key of one profile's bundle. */
export function profileKey(profile: string): string {
  return `profile:${profile}`;
}

/** The `profiles` value: which profiles the last deploy uploaded, and a stamp that changes with their content. */
export interface BundleIndex {
  format: typeof bundleFormat;
  /** The hashes of all bundles together: equal stamps, equal bundles (a Worker keeps its copy). */
  stamp: string;
  /** When the deploy was built (ISO 8601). */
  deployedAt: string;
  /** Profile names, `default` first. */
  profiles: string[];
}

/** A skill as the Worker serves it: its metadata and what the `skill` tool shows of it. */
export interface BundledSkill {
  name: string;
  description: string;
  userInvocable: boolean;
  disableModelInvocation: boolean;
  source: ResourceSource;
  /** Its SKILL.md as a label, e.g. `skills/deploy/SKILL.md` (shown as its location). */
  location: string;
  /**
   * What the `skill` tool answers: its instructions and references, formatted and capped by the
   * Node code that does so for the Node tool. Scripts and assets are not uploaded: nothing on
   * Workers could run or read them.
   */
  text: string;
}

/** A knowledge document: its name (path in its knowledge folder), title and text. */
export interface BundledKnowledge {
  name: string;
  title: string;
  text: string;
  source: ResourceSource;
}

/** One profile's resources, as the Node gateway would load them. */
export interface ResourceBundle {
  format: typeof bundleFormat;
  profile: string;
  /** SHA-256 (hex) of everything below: unchanged resources, unchanged hash. */
  hash: string;
  /** SYSTEM.md, SOUL.md and AGENT.md, from the highest layer that has each. */
  identity: { system?: NamedText; soul?: NamedText; agent?: NamedText };
  /** The rules text as the prompt appends it, and the files it came from (labels). */
  rules: { text: string; files: string[] };
  /** Sorted by name; one per name, from the highest layer with a valid one. */
  skills: BundledSkill[];
  /** Sorted by name; one per name, from the highest layer. */
  knowledge: BundledKnowledge[];
  /** The knowledge the prompt injects (chosen as on Node); `''` when none. */
  knowledgeInjection: string;
  /**
   * The profile's MEMORY.md and USER.md at deploy time: the starting point of the Worker's memory,
   * used until the Worker's agent first writes its own (which then lives in KV and is never
   * replaced by a deploy).
   */
  memorySeed: { memory?: string; user?: string };
  /** Files that were not uploaded (broken, or refused as carrying a secret), with labels for paths. */
  problems: ResourceProblem[];
}
