/**
 * A bundle as the shapes the prompt assembly and the resource tools take: `Skill`s with their
 * content, `KnowledgeDocument`s, and a fingerprint of everything for the reload report. Paths are
 * the bundle's labels (`skills/deploy/SKILL.md`, `knowledge/runbook.md`): there is no filesystem.
 */
import type { ResourceBundle } from '../../cli/deploy/resource-bundle-format.ts';
import { createKnowledgeIndex, type KnowledgeIndex } from '../../resources/knowledge-index.ts';
import type { KnowledgeDocument, Skill } from '../../resources/types.ts';


/** One loaded bundle, ready for prompts and tools. */
export interface BundleSnapshot {
  bundle: ResourceBundle;
  skills: Skill[];
  /** By skill name: what the `skill` tool answers. */
  skillTexts: Map<string, string>;
  knowledge: KnowledgeDocument[];
  /** The search index, built on the first search (the rest of a load costs less). */
  index(): KnowledgeIndex;
  /** `kind:name` -> content, for telling what a reload changed. */
  fingerprints: Map<string, string>;
}

/** The snapshot of `bundle`. */
export function snapshotOf(bundle: ResourceBundle): BundleSnapshot {
  const skills: Skill[] = [];
  const skillTexts = new Map<string, string>();
  for (const bundled of bundle.skills) {
    skills.push({
      name: bundled.name,
      description: bundled.description,
      location: bundled.location,
      directory: bundled.location.replace(/\/SKILL\.md$/, ''),
      userInvocable: bundled.userInvocable,
      disableModelInvocation: bundled.disableModelInvocation,
      source: bundled.source,
    });
    skillTexts.set(bundled.name, bundled.text);
  }
  const knowledge = bundle.knowledge.map((document): KnowledgeDocument => ({ ...document, path: `knowledge/${document.name}` }));
  let index: KnowledgeIndex | undefined;
  return { bundle, skills, skillTexts, knowledge, index: () => (index ??= createKnowledgeIndex(knowledge)), fingerprints: fingerprintsOf(bundle) };
}

/** The same keys as the Node reload report's (`file:SOUL.md`, `skills:deploy`, `knowledge:x.md`). */
function fingerprintsOf(bundle: ResourceBundle): Map<string, string> {
  const map = new Map<string, string>();
  for (const item of [bundle.identity.system, bundle.identity.soul, bundle.identity.agent]) if (item) map.set(`file:${item.label}`, item.text);
  if (bundle.rules.text) map.set('file:rules', bundle.rules.text);
  for (const skill of bundle.skills) map.set(`skills:${skill.name}`, `${skill.description}\n${skill.text}`);
  for (const document of bundle.knowledge) map.set(`knowledge:${document.name}`, document.text);
  return map;
}
