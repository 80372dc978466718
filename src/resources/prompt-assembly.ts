/**
 * Assembles the system prompt from its eight layers, in this order: identity, docs reference,
 * append section (configured text, rules, AGENT.md, knowledge), memory and user profile (the
 * profile's, then the conversation's own), skills, platform hint, footer. Pure: the same parts
 * always give the same bytes, which is what keeps the provider's prompt cache warm. Every file has
 * a size cap and the prompt a total cap; whatever is cut is marked in the prompt and listed in
 * `truncations` (shown by `/status`).
 */
import type { Skill } from './types.ts';

/** Used when neither SYSTEM.md nor SOUL.md gives an identity. */
export const defaultPersona = 'You are a helpful assistant.';

/** Guidelines that follow the persona (not SYSTEM.md, which replaces the whole identity layer). */
export const defaultGuidelines = [
  'Guidelines:',
  '- Be direct and accurate. Say so when you are unsure or do not know.',
  '- Use the tools available to you when they help, and never invent their results.',
  '- Keep answers as short as the question allows.',
].join('\n');

/** A file's text with where it came from (for notices). */
export interface NamedText {
  /** Shown in truncation notices, e.g. `SOUL.md`. */
  label: string;
  text: string;
}

/** A memory file's text and fill level. */
export interface MemoryLayer {
  text: string;
  /** The header line, e.g. `MEMORY [67% - 1,474/2,200 chars]`. */
  header: string;
}

/** Everything the prompt is made of. Absent parts leave their layer out. */
export interface PromptParts {
  system?: NamedText;
  soul?: NamedText;
  /** The docs reference block (already formatted). */
  docs?: string;
  /** Configured append text, rules, AGENT.md, knowledge: in this order. */
  append?: NamedText[];
  memory?: MemoryLayer;
  user?: MemoryLayer;
  /**
   * The conversation's own MEMORY.md and USER.md (what seats other than the owner's keep), right
   * after the profile's: read when the conversation's prompt is built, like the profile's, so the
   * prompt keeps its bytes from turn to turn.
   */
  conversation?: { memory?: MemoryLayer; user?: MemoryLayer };
  /** Skills the model may load; the layer appears only when this is given (a read or skill tool exists). */
  skills?: readonly Skill[];
  platform?: string;
  footer: string;
}

/** Size caps, in characters. */
export interface PromptCaps {
  /** Per file (SOUL.md, MEMORY.md, one rules file, ...). */
  perFile: number;
  /** The whole prompt. */
  total: number;
}

/** Defaults: 20,000 characters a file, 80,000 for the prompt (about 20k tokens). */
export const defaultPromptCaps: PromptCaps = { perFile: 20_000, total: 80_000 };

/** The prompt and what had to be cut. */
export interface AssembledPrompt {
  prompt: string;
  truncations: string[];
  /** The prompt's sections in order, each with its size in characters after any cut (the admin console shows them). */
  parts: { label: string; characters: number }[];
}

interface Section {
  text: string;
  /** Lower is cut first when the total is over its cap; undefined is never cut. */
  cutOrder?: number;
  label: string;
}

/**
 * What {@link capText} made of a file kept for the whole run (a profile's SOUL.md, its rules,
 * knowledge), by the object that carries it: the same object, under the same limit, gives the
 * same text, so a turn does not trim and measure the same kilobytes again.
 */
const cappedFiles = new WeakMap<NamedText, { limit: number; text: string; truncation?: string }>();

/** The skills block made of one skills list, by the list (a profile's lives until its reload). */
const skillBlocks = new WeakMap<readonly Skill[], string>();

/** {@link capText} of `item`, from {@link cappedFiles} when `item` was capped under `limit` before. */
function capFile(item: NamedText, limit: number, truncations: string[]): string {
  let capped = cappedFiles.get(item);
  if (capped?.limit !== limit) {
    const cut: string[] = [];
    capped = { limit, text: capText(item.label, item.text, limit, cut), truncation: cut[0] };
    cappedFiles.set(item, capped);
  }
  if (capped.truncation !== undefined) truncations.push(capped.truncation);
  return capped.text;
}

/** Builds the system prompt (see the file comment for the layer order). */
export function assembleSystemPrompt(parts: PromptParts, caps: PromptCaps = defaultPromptCaps): AssembledPrompt {
  const truncations: string[] = [];
  const cap = (item: NamedText): string => capFile(item, caps.perFile, truncations);
  // Memory files are read for each prompt: their text is new each time, so nothing is kept.
  const capNow = (label: string, text: string): string => capText(label, text, caps.perFile, truncations);
  const sections: Section[] = [];

  // 1. Identity.
  if (parts.system?.text.trim()) {
    sections.push({ text: cap(parts.system), cutOrder: 6, label: parts.system.label });
  } else {
    const persona = parts.soul?.text.trim() ? cap(parts.soul) : defaultPersona;
    sections.push({ text: `${persona}\n\n${defaultGuidelines}`, cutOrder: 6, label: parts.soul?.label ?? 'identity' });
  }
  // 2. Docs reference.
  if (parts.docs) sections.push({ text: parts.docs, cutOrder: 1, label: 'docs reference' });
  // 3. Append section.
  const append = (parts.append ?? []).filter((item) => item.text.trim()).map(cap);
  if (append.length > 0) sections.push({ text: append.join('\n\n'), cutOrder: 0, label: 'rules and knowledge' });
  // 4-5. Memory and user profile: the profile's, then the conversation's own (cut last of them).
  if (parts.memory) sections.push({ text: `${parts.memory.header}\n${capNow('MEMORY.md', parts.memory.text)}`.trimEnd(), cutOrder: 4, label: 'MEMORY.md' });
  if (parts.user) sections.push({ text: `${parts.user.header}\n${capNow('USER.md', parts.user.text)}`.trimEnd(), cutOrder: 3, label: 'USER.md' });
  for (const [layer, label] of [[parts.conversation?.memory, "the conversation's MEMORY.md"], [parts.conversation?.user, "the conversation's USER.md"]] as const) {
    if (layer) sections.push({ text: `${layer.header}\n${capNow(label, layer.text)}`.trimEnd(), cutOrder: 5, label });
  }
  // 6. Skills.
  if (parts.skills) {
    let block = skillBlocks.get(parts.skills);
    if (block === undefined) skillBlocks.set(parts.skills, (block = skillsBlock(parts.skills)));
    if (block) sections.push({ text: block, cutOrder: 2, label: 'skills' });
  }
  // 7-8. Platform hint and footer: never cut.
  if (parts.platform) sections.push({ text: parts.platform, label: 'platform hint' });
  sections.push({ text: parts.footer, label: 'footer' });

  fitTotal(sections, caps.total, truncations);
  const sizes = sections.map((section) => ({ label: section.label, characters: section.text.length }));
  return { prompt: sections.map((section) => section.text).join('\n\n'), truncations, parts: sizes };
}

/** The `<available_skills>` block with the rules for using skills; empty when no skill is visible. */
export function skillsBlock(skills: readonly Skill[]): string {
  const visible = skills.filter((skill) => !skill.disableModelInvocation);
  if (visible.length === 0) return '';
  const entries = visible.map(
    (skill) =>
      `  <skill>\n    <name>${escapeXml(skill.name)}</name>\n    <description>${escapeXml(skill.description)}</description>\n    <location>${escapeXml(skill.location)}</location>\n  </skill>`,
  );
  return [
    'Skills are instructions for specific tasks. When a task matches a skill\'s description, load the skill (the skill tool, or read its SKILL.md at <location>) before you act, and follow it. Load only skills that apply; do not mention skills the person did not ask about.',
    `<available_skills>\n${entries.join('\n')}\n</available_skills>`,
  ].join('\n');
}

function capText(label: string, text: string, limit: number, truncations: string[]): string {
  const trimmed = text.trim();
  if (trimmed.length <= limit) return trimmed;
  truncations.push(`${label}: ${trimmed.length.toLocaleString('en-US')} characters, cut to ${limit.toLocaleString('en-US')}`);
  return `${trimmed.slice(0, limit)}\n[... ${label} truncated: ${(trimmed.length - limit).toLocaleString('en-US')} more characters not shown]`;
}

/** Cuts the most expendable sections (lowest cutOrder first) until the prompt fits `total`. */
function fitTotal(sections: Section[], total: number, truncations: string[]): void {
  const length = () => sections.reduce((sum, section) => sum + section.text.length, 0) + 2 * (sections.length - 1);
  const order = sections.filter((section) => section.cutOrder !== undefined).sort((a, b) => a.cutOrder! - b.cutOrder!);
  for (const section of order) {
    const excess = length() - total;
    if (excess <= 0) return;
    const notice = `\n[... ${section.label} truncated to fit the prompt size limit]`;
    const keep = Math.max(0, section.text.length - excess - notice.length);
    truncations.push(`${section.label}: cut by ${(section.text.length - keep).toLocaleString('en-US')} characters to fit the prompt limit of ${total.toLocaleString('en-US')}`);
    section.text = `${section.text.slice(0, keep)}${notice}`;
  }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
