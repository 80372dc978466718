/**
 * The system prompt seam. The Agent asks a builder for the prompt of a channel and caches the
 * answer until resources change, so the bytes stay identical from turn to turn (prompt cache).
 */
import { homedir } from 'node:os';

/** What a builder knows about the turn it builds for. */
export interface PromptContext {
  /** The conversation's channel key, or undefined for the terminal. */
  channel: string | undefined;
  sessionId: string;
  cwd: string;
  /** `YYYY-MM-DD`: a date, never a time, so the prompt is stable for a day. */
  date: string;
  toolNames: readonly string[];
  /**
   * The turn is in an owner's seat. Its prompt leaves out the conversation's own memory, which
   * only a lesser seat writes (in an owner's conversation: a job made in a group and delivered
   * there), so nothing another seat saved reaches an owner's prompt. Unset: shown.
   */
  owner?: boolean;
}

/** Builds the system prompt for a channel. */
export type SystemPromptBuilder = (context: PromptContext) => Promise<string> | string;

const guidelines = [
  'Be direct and accurate. Say so when you are unsure or do not know.',
  'Use the tools available to you when they help; do not invent their results.',
  'Keep answers as short as the question allows.',
].join('\n');

/** The built-in prompt: a plain assistant persona, guidelines and the footer. */
export const defaultSystemPrompt: SystemPromptBuilder = (context) =>
  [`You are a helpful assistant.\n\n${guidelines}`, promptFooter(context)].join('\n\n');

/** The footer every prompt ends with: date, directories and session id. */
export function promptFooter(context: PromptContext, globalDirectory = process.env.OPERATOR_HOME ?? `${homedir()}/.operator`): string {
  return [
    `Current date: ${context.date}`,
    `Current working directory: ${context.cwd}`,
    `Global directory: ${globalDirectory}`,
    `Session ID: ${context.sessionId}`,
  ].join('\n');
}

/** Today's date as `YYYY-MM-DD` in local time. */
export function today(now: Date = new Date()): string {
  const month = String(now.getMonth() + 1).padStart(2, '0');
  const day = String(now.getDate()).padStart(2, '0');
  return `${now.getFullYear()}-${month}-${day}`;
}
