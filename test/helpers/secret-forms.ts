/**
 * The forms a planted secret could leave in: as written, base64 and hex. A red-team test checks
 * every form of every secret in what reached the model and the chat, since a command or a tool
 * may encode what it found to slip past a redactor.
 */
import { expect } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-model-server.ts';

/** The value as written, in base64 and in hex (lower case). */
export function secretForms(value: string): string[] {
  return [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex')];
}

/** Fails when any form of any of `secrets` appears in `text`; `where` names what was searched. */
export function expectNoSecretIn(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) {
    for (const form of secretForms(secret)) expect(text.includes(form), `a form of a planted secret reached ${where}`).toBe(false);
  }
}

/** Every tool result a model request carries, as JSON text. */
export function toolResultsOf(request: RecordedRequest): string {
  const parts = (request.body.messages as { content: unknown }[]).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return JSON.stringify(parts.filter((part: { type?: string }) => part.type === 'tool_result'));
}

/** Everything the model was sent in all of `requests` (system prompt, messages, tool results). */
export function everythingSentToModel(requests: readonly RecordedRequest[]): string {
  return requests.map((request) => JSON.stringify(request.body)).join('\n');
}
