/** The guardrails operator always runs. */
import type { Guardrail } from '../agent/guardrail.ts';
import { createDoomLoopGuard } from './doom-loop-guard.ts';
import { createSecretRedactor } from './secret-redactor.ts';
import { createToolCallCap } from './tool-call-cap.ts';
import { createWorkspaceConfinement } from './workspace-confinement.ts';

/** Options of the built-in guardrails; only the workspace roots are required. */
export interface BuiltinGuardrailOptions {
  /** Folders the file tools may use; relative paths resolve against the first. */
  roots: string[];
  /** Paths no file tool may touch, even inside a root (operator's private state). */
  hidden?: string[];
  /** Environment whose secret values are redacted from results. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** `.env` files every value of which is redacted from results (those operator loads). */
  envFiles?: readonly string[];
  /** Tool calls allowed per turn. Default 60. */
  maxToolCallsPerTurn?: number;
  /** Identical calls allowed per turn before the doom-loop guard blocks. Default 4. */
  doomLoopThreshold?: number;
}

/**
 * `tool-call-cap`, `doom-loop`, `workspace-confinement`, `secret-redactor`, in that order. The
 * counting guardrails come first because a set stops at the first block: placed after the
 * confinement, they would never see the calls it blocks, and a model retrying a blocked call
 * forever would never hit the cap or the loop guard.
 */
export function createBuiltinGuardrails(options: BuiltinGuardrailOptions): Guardrail[] {
  return [
    createToolCallCap({ maxPerTurn: options.maxToolCallsPerTurn }),
    createDoomLoopGuard({ threshold: options.doomLoopThreshold }),
    createWorkspaceConfinement({ roots: options.roots, hidden: options.hidden }),
    createSecretRedactor({ env: options.env, envFiles: options.envFiles }),
  ];
}
