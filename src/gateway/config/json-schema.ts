/**
 * The JSON Schema of `operator.json`, generated from the zod schema. The committed
 * `operator.schema.json` at the repository root is this text (a test keeps them equal); refresh
 * it with `operator config schema > operator.schema.json`.
 */
import * as z from 'zod';
import { operatorConfigSchema } from './schema.ts';

/** The JSON Schema (draft 2020-12) of what `operator.json` may contain. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(operatorConfigSchema, { io: 'input' }) as Record<string, unknown>;
}

/** {@link configJsonSchema} as the text of `operator.schema.json` (2-space indent, final newline). */
export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
