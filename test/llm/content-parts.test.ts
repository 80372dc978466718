/**
 * Recordings and documents in a person's message, as each provider's request carries them (the
 * bodies the real SDKs sent to the fake server), and the note that stands in where a provider
 * takes no such part.
 */
import { describe, expect, it } from 'vitest';
import type { Message, Provider, UserContent } from '../../src/llm/types.ts';
import { finalMessage, request, run, useFakeProviders } from './helpers.ts';

const fake = useFakeProviders();

const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64');
const wav = Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVEfmt ').toString('base64');
const notes = Buffer.from('Meeting notes: ship on Friday. Café ☕').toString('base64');

const parts: UserContent[] = [
  { type: 'text', text: 'What do these say?' },
  { type: 'document', data: pdf, mediaType: 'application/pdf', name: 'report.pdf' },
  { type: 'document', data: notes, mediaType: 'text/plain', name: 'notes.txt' },
  { type: 'audio', data: wav, mediaType: 'audio/wav' },
  { type: 'audio', data: wav, mediaType: 'audio/ogg' },
];
const conversation: Message[] = [{ role: 'user', content: parts }];

/** The content of the one user message the fake got. */
async function sentContent(provider: Provider, model: string): Promise<unknown[]> {
  finalMessage(await run(provider, request(model, conversation)));
  const messages = fake.server.requests[0]!.body.messages as { role: string; content: unknown[] }[];
  return messages.find((message) => message.role === 'user')!.content;
}

describe('content parts: Anthropic', () => {
  it('sends the PDF and the text as document blocks and notes the recordings it cannot take', async () => {
    const content = await sentContent(fake.anthropic, 'claude-sonnet-4-6');
    expect(content[1]).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'report.pdf' });
    expect(content[2]).toEqual({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Meeting notes: ship on Friday. Café ☕' }, title: 'notes.txt' });
    expect(content[3]).toEqual({ type: 'text', text: '[A recording (audio/wav) was attached here, but Claude cannot take it, so it was left out.]' });
    expect(content).toHaveLength(5);
  });

  it('notes a document of a type it cannot take', async () => {
    finalMessage(await run(fake.anthropic, request('claude-sonnet-4-6', [{ role: 'user', content: [{ type: 'document', data: pdf, mediaType: 'application/zip' }] }])));
    expect(fake.server.requests[0]!.body.messages[0].content[0]).toMatchObject({ type: 'text', text: '[A document (application/zip) was attached here, but Claude cannot take it, so it was left out.]' });
  });
});

describe('content parts: OpenAI', () => {
  it('sends the PDF as a file part and a WAV as input_audio, and notes the rest', async () => {
    const content = await sentContent(fake.openai, 'gpt-4.1');
    expect(content).toEqual([
      { type: 'text', text: 'What do these say?' },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${pdf}`, filename: 'report.pdf' } },
      { type: 'text', text: '[A document named "notes.txt" (text/plain) was attached here, but this model cannot take it, so it was left out.]' },
      { type: 'input_audio', input_audio: { data: wav, format: 'wav' } },
      { type: 'text', text: '[A recording (audio/ogg) was attached here, but this model cannot take it, so it was left out.]' },
    ]);
  });
});

describe('content parts: Gemini', () => {
  it('sends a WAV as input_audio and notes the documents its endpoint takes none of', async () => {
    const content = await sentContent(fake.gemini, 'gemini-2.5-flash');
    expect(content[1]).toEqual({ type: 'text', text: '[A document named "report.pdf" (application/pdf) was attached here, but Gemini cannot take it, so it was left out.]' });
    expect(content[3]).toEqual({ type: 'input_audio', input_audio: { data: wav, format: 'wav' } });
  });
});
