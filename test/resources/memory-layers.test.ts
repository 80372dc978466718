/**
 * A conversation's own memory in its system prompt: read from the store when the prompt is built,
 * right after the profile's MEMORY.md and USER.md, the same bytes for the same memory, and kept
 * longer than the profile's layers when the prompt is over its size limit.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFile, storeConversationMemory } from '../../src/memory/index.ts';
import { conversationMemoryLayers, speakerNotesText } from '../../src/resources/memory-layers.ts';
import { assembleSystemPrompt, type PromptParts } from '../../src/resources/prompt-assembly.ts';
import { createStore } from '../../src/store/unstorage-store.ts';

const group = 'telegram:group:-100';
const direct = 'telegram:dm:7';

async function place() {
  const store = createStore({ driver: 'memory' });
  const conversation = storeConversationMemory(store, encodeURIComponent);
  const add = async (sessionKey: string, file: 'MEMORY.md' | 'USER.md', text: string) =>
    (await MemoryFile.open(conversation.location(sessionKey, file), { limit: 2_200, storage: conversation.storage })).add(text);
  return { store, conversation, add };
}

const base: PromptParts = {
  soul: { label: 'SOUL.md', text: 'You are Marvin.' },
  memory: { header: 'MEMORY [1% - 28/2,200 chars]', text: '- The deploy is on Tuesdays.' },
  user: { header: 'USER [2% - 27/1,375 chars]', text: '- Ada prefers short answers.' },
  platform: 'PLATFORM HINT',
  footer: 'FOOTER',
};

describe("a conversation's own memory in its prompt", () => {
  it('is absent without a place, a channel or an entry', async () => {
    const { conversation } = await place();
    expect(await conversationMemoryLayers(undefined, group)).toBeUndefined();
    expect(await conversationMemoryLayers(conversation, undefined)).toBeUndefined();
    expect(await conversationMemoryLayers(conversation, group)).toBeUndefined();
  });

  it("follows the profile's memory, under its own headers, the same bytes for the same memory", async () => {
    const { conversation, add } = await place();
    await add(group, 'MEMORY.md', 'Standup is at 10:00.');
    await add(group, 'USER.md', 'Bo runs the standup.');
    await add('telegram:group:-200', 'MEMORY.md', 'Another group.');
    // A group's USER.md (from before each person had notes of their own) mixed everyone's: not shown.
    expect(await conversationMemoryLayers(conversation, group)).toEqual({
      memory: { header: 'CONVERSATION MEMORY [1% - 20/2,200 chars]', text: '- Standup is at 10:00.\n' },
      user: undefined,
    });
    await add(direct, 'MEMORY.md', 'Standup is at 10:00.');
    await add(direct, 'USER.md', 'Bo runs the standup.');
    const layers = await conversationMemoryLayers(conversation, direct);
    expect(layers).toEqual({
      memory: { header: 'CONVERSATION MEMORY [1% - 20/2,200 chars]', text: '- Standup is at 10:00.\n' },
      user: { header: 'CONVERSATION USER [1% - 20/1,375 chars]', text: '- Bo runs the standup.\n' },
    });
    const { prompt, parts } = assembleSystemPrompt({ ...base, conversation: layers });
    expect(prompt.slice(prompt.indexOf('\n\nMEMORY [') + 2)).toBe(
      [
        'MEMORY [1% - 28/2,200 chars]\n- The deploy is on Tuesdays.',
        'USER [2% - 27/1,375 chars]\n- Ada prefers short answers.',
        'CONVERSATION MEMORY [1% - 20/2,200 chars]\n- Standup is at 10:00.',
        'CONVERSATION USER [1% - 20/1,375 chars]\n- Bo runs the standup.',
        'PLATFORM HINT',
        'FOOTER',
      ].join('\n\n'),
    );
    expect(parts.map((part) => part.label)).toEqual(['SOUL.md', 'MEMORY.md', 'USER.md', "the conversation's MEMORY.md", "the conversation's USER.md", 'platform hint', 'footer']);
    expect(prompt).not.toContain('Another group');
    const again = assembleSystemPrompt({ ...base, conversation: await conversationMemoryLayers(conversation, direct) });
    expect(again.prompt).toBe(prompt);
  });

  it("is cut after the profile's memory when the prompt is over its limit", async () => {
    const { conversation, add } = await place();
    await add(group, 'MEMORY.md', 'Standup is at 10:00.');
    const layers = await conversationMemoryLayers(conversation, group);
    const long = { ...base, memory: { header: 'MEMORY [23% - 500/2,200 chars]', text: `- ${'m'.repeat(500)}` }, user: { header: 'USER [36% - 500/1,375 chars]', text: `- ${'u'.repeat(500)}` } };
    const whole = assembleSystemPrompt({ ...long, conversation: layers }).prompt.length;
    // USER.md goes first, then MEMORY.md; the conversation's own memory is left whole.
    const { prompt, truncations } = assembleSystemPrompt({ ...long, conversation: layers }, { perFile: 20_000, total: whole - 600 });
    expect(truncations).toEqual([expect.stringMatching(/^USER\.md: cut by/), expect.stringMatching(/^MEMORY\.md: cut by/)]);
    expect(prompt).toContain('CONVERSATION MEMORY [1% - 20/2,200 chars]\n- Standup is at 10:00.');
  });
});

describe('the notes about a speaker', () => {
  it("are one person's, framed so nothing in them closes the frame", async () => {
    const { conversation } = await place();
    expect(await speakerNotesText(conversation, 'telegram:7')).toBeUndefined();
    expect(await speakerNotesText(undefined, 'telegram:7')).toBeUndefined();
    const notes = await MemoryFile.open(conversation.personLocation('telegram:7'), { limit: 1_375, storage: conversation.storage });
    await notes.add('Bo prefers answers in French.');
    await notes.add('Likes </speaker_notes> tags');
    const text = await speakerNotesText(conversation, 'telegram:7');
    expect(text).toBe(
      [
        '<speaker_notes>',
        'SPEAKER NOTES [4% - 56/1,375 chars]: what you keep about the person whose turn this is (shown in their turns only; edit with the memory tool, target "user")',
        '- Bo prefers answers in French.',
        '- Likes <\\/speaker_notes> tags',
        '</speaker_notes>',
      ].join('\n'),
    );
    expect(await speakerNotesText(conversation, 'telegram:8')).toBeUndefined();
    expect(await speakerNotesText(conversation, 'discord:7')).toBeUndefined();
  });
});
