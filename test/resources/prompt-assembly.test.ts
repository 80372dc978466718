import { describe, expect, it } from 'vitest';
import { assembleSystemPrompt, defaultGuidelines, defaultPersona, skillsBlock } from '../../src/resources/prompt-assembly.ts';
import type { PromptParts } from '../../src/resources/prompt-assembly.ts';
import { buildFooter } from '../../src/resources/prompt-footer.ts';
import { platformHint, platformOfChannel } from '../../src/resources/platform-hints.ts';
import { resolveProfile } from '../../src/resources/profile-binding.ts';
import type { Skill } from '../../src/resources/types.ts';

const footer = buildFooter({ date: '2026-11-22', cwd: '/work', home: '/home/ada/.operator', profile: { name: 'team', directory: '/home/ada/.operator/profiles/team' }, sessionId: 'abc' });
const skill = (name: string, extra: Partial<Skill> = {}): Skill => ({
  name,
  description: `Does ${name} things & more`,
  location: `/skills/${name}/SKILL.md`,
  directory: `/skills/${name}`,
  userInvocable: false,
  disableModelInvocation: false,
  source: 'builtin',
  ...extra,
});

const full: PromptParts = {
  soul: { label: 'SOUL.md', text: 'You are Marvin, the team\'s assistant.' },
  docs: 'operator docs: /repo/README.md',
  append: [
    { label: 'configured append text', text: 'Always answer in English.' },
    { label: 'rules', text: 'Use pytest.' },
    { label: 'AGENT.md', text: 'Agent notes.' },
    { label: 'knowledge', text: '<knowledge file="a.md">\nA\n</knowledge>' },
  ],
  memory: { header: 'MEMORY [10% - 220/2,200 chars]', text: '- The deploy is on Tuesdays.' },
  user: { header: 'USER [5% - 69/1,375 chars]', text: '- Ada prefers short answers.' },
  skills: [skill('deploy'), skill('hidden', { disableModelInvocation: true })],
  platform: platformHint('telegram'),
  footer,
};

describe('system prompt assembly', () => {
  it('puts the eight layers in order (golden)', () => {
    const { prompt, truncations } = assembleSystemPrompt(full);
    expect(truncations).toEqual([]);
    expect(prompt).toBe(
      [
        `You are Marvin, the team's assistant.\n\n${defaultGuidelines}`,
        'operator docs: /repo/README.md',
        'Always answer in English.\n\nUse pytest.\n\nAgent notes.\n\n<knowledge file="a.md">\nA\n</knowledge>',
        'MEMORY [10% - 220/2,200 chars]\n- The deploy is on Tuesdays.',
        'USER [5% - 69/1,375 chars]\n- Ada prefers short answers.',
        skillsBlock([skill('deploy')]),
        platformHint('telegram'),
        footer,
      ].join('\n\n'),
    );
    expect(prompt).toContain('<name>deploy</name>');
    expect(prompt).toContain('<description>Does deploy things &amp; more</description>');
    expect(prompt).toContain('<location>/skills/deploy/SKILL.md</location>');
    expect(prompt).not.toContain('<name>hidden</name>');
    expect(prompt.endsWith('Session ID: abc')).toBe(true);
  });

  it('SYSTEM.md replaces only the identity layer', () => {
    const { prompt } = assembleSystemPrompt({ ...full, system: { label: 'SYSTEM.md', text: 'CUSTOM SYSTEM' } });
    expect(prompt.startsWith('CUSTOM SYSTEM\n\noperator docs')).toBe(true);
    expect(prompt).not.toContain('Marvin');
    expect(prompt).not.toContain(defaultGuidelines);
    expect(prompt).toContain('MEMORY [');
    expect(prompt).toContain('<available_skills>');
    expect(prompt).toContain('Current date: 2026-11-22');
  });

  it('falls back to the default persona and leaves absent layers out', () => {
    const { prompt } = assembleSystemPrompt({ footer });
    expect(prompt).toBe(`${defaultPersona}\n\n${defaultGuidelines}\n\n${footer}`);
  });

  it('is byte-identical for identical parts', () => {
    expect(assembleSystemPrompt(full).prompt).toBe(assembleSystemPrompt(structuredClone(full)).prompt);
  });

  it('caps each file and the whole prompt with visible notices', () => {
    const huge = { ...full, soul: { label: 'SOUL.md', text: 'x'.repeat(30_000) } };
    const perFile = assembleSystemPrompt(huge, { perFile: 20_000, total: 1_000_000 });
    expect(perFile.prompt).toContain('[... SOUL.md truncated: 10,000 more characters not shown]');
    expect(perFile.truncations).toEqual(['SOUL.md: 30,000 characters, cut to 20,000']);

    const total = assembleSystemPrompt({ ...full, append: [{ label: 'knowledge', text: 'k'.repeat(5_000) }] }, { perFile: 20_000, total: 3_000 });
    expect(total.prompt.length).toBeLessThanOrEqual(3_000);
    expect(total.prompt).toContain('rules and knowledge truncated to fit the prompt size limit');
    expect(total.prompt.endsWith('Session ID: abc')).toBe(true);
    expect(total.prompt).toContain(platformHint('telegram')!);
    expect(total.truncations[0]).toMatch(/^rules and knowledge: cut by/);
  });
});

  it('gives the same prompt and the same notices when the same parts come again, and follows a new file or cap', () => {
    // The profile hands the same objects each turn; what was made of them is kept by object.
    const soul = { label: 'SOUL.md', text: 'y'.repeat(25_000) };
    const parts: PromptParts = { ...full, soul, skills: [skill('deploy')] };
    const first = assembleSystemPrompt(parts, { perFile: 20_000, total: 1_000_000 });
    const again = assembleSystemPrompt(parts, { perFile: 20_000, total: 1_000_000 });
    expect(again).toEqual(first);
    expect(again.truncations).toEqual(['SOUL.md: 25,000 characters, cut to 20,000']);
    // Another cap for the same object is applied, not the kept text.
    expect(assembleSystemPrompt(parts, { perFile: 30_000, total: 1_000_000 }).truncations).toEqual([]);
    // A reloaded file is a new object: its new text is used.
    const reloaded = assembleSystemPrompt({ ...parts, soul: { label: 'SOUL.md', text: 'You are Ada.' }, skills: [skill('release')] }, { perFile: 20_000, total: 1_000_000 });
    expect(reloaded.prompt).toContain('You are Ada.');
    expect(reloaded.prompt).toContain('<name>release</name>');
    expect(reloaded.prompt).not.toContain('<name>deploy</name>');
    expect(reloaded.truncations).toEqual([]);
  });

describe('platform hints', () => {
  it('derives the platform from the channel key', () => {
    expect(platformOfChannel('telegram:group:-100')).toBe('telegram');
    expect(platformOfChannel(undefined)).toBe('terminal');
    for (const platform of ['telegram', 'discord', 'slack', 'web', 'terminal']) expect(platformHint(platform)).toBeTruthy();
    expect(platformHint('myspace')).toBeUndefined();
  });
});

describe('profile resolution', () => {
  const bindings = {
    channels: { 'telegram:-100': 'team', 'telegram:-100:17': 'oncall' },
    people: { 'telegram:42': 'ada-personal' },
  };

  it('thread binding beats channel binding beats the default', () => {
    expect(resolveProfile({ platform: 'telegram', conversationId: '-100', threadId: '17', senderId: '42', isDirect: false }, bindings)).toEqual({ profile: 'oncall', reason: 'thread' });
    expect(resolveProfile({ platform: 'telegram', conversationId: '-100', threadId: '18', senderId: '42', isDirect: false }, bindings)).toEqual({ profile: 'team', reason: 'channel' });
    expect(resolveProfile({ platform: 'telegram', conversationId: '-200', isDirect: false }, bindings)).toEqual({ profile: 'default', reason: 'default' });
  });

  it('a personal profile is used in that person\'s DMs only, never in a group', () => {
    expect(resolveProfile({ platform: 'telegram', conversationId: '42', senderId: '42', isDirect: true }, bindings)).toEqual({ profile: 'ada-personal', reason: 'person' });
    expect(resolveProfile({ platform: 'telegram', conversationId: '-300', senderId: '42', isDirect: false }, bindings).profile).toBe('default');
    expect(resolveProfile({ platform: 'discord', conversationId: '42', senderId: '42', isDirect: true }, bindings).profile).toBe('default');
  });
});
