/** How full the model's context window is. */
import type { ModelInfo } from '../llm/catalog.ts';
import type { Message } from '../llm/types.ts';
import { estimateTokens } from './compaction.ts';
import type { ContextUsage } from './extension-context.ts';

/**
 * The context's size against the model's window (128,000 tokens when unknown): `measured` tokens
 * when a call reported them, else estimated from `messages`, else 0.
 */
export function contextUsage(measured: number | undefined, modelInfo: ModelInfo | undefined, messages?: readonly Message[]): ContextUsage {
  const contextWindow = modelInfo?.contextWindow ?? 128_000;
  const tokens = measured ?? messages?.reduce((sum, message) => sum + estimateTokens(message), 0) ?? 0;
  return { tokens, contextWindow, fraction: tokens / contextWindow, measured: measured !== undefined };
}
