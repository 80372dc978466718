/** The guardrails operator always runs. */
import type { Guardrail } from '../agent/guardrail.ts';
import { createDoomLoopGuard } from './doom-loop-guard.ts';
import type { DoomLoopGuardOptions } from './doom-loop-guard.ts';
import { createSecretRedactor } from './secret-redactor.ts';
import type { SecretRedactorOptions } from './secret-redactor.ts';
import { createToolCallCap } from './tool-call-cap.ts';
import type { ToolCallCapOptions } from './tool-call-cap.ts';
import { createWorkspaceConfinement } from './workspace-confinement.ts';
import type { WorkspaceConfinementOptions } from './workspace-confinement.ts';

/** Options of each built-in guardrail; only the workspace roots are required. */
export interface BuiltinGuardrailOptions {
  workspace: WorkspaceConfinementOptions;
  toolCallCap?: ToolCallCapOptions;
  doomLoop?: DoomLoopGuardOptions;
  secretRedactor?: SecretRedactorOptions;
}

/**
 * `tool-call-cap`, `doom-loop`, `workspace-confinement`, `secret-redactor`, in that order. The
 * counting guardrails come first because a set stops at the first block: placed after the
 * confinement, they would never see the calls it blocks, and a model retrying a blocked call
 * forever would never hit the cap or the loop guard.
 */
export function createBuiltinGuardrails(options: BuiltinGuardrailOptions): Guardrail[] {
  return [
    createToolCallCap(options.toolCallCap),
    createDoomLoopGuard(options.doomLoop),
    createWorkspaceConfinement(options.workspace),
    createSecretRedactor(options.secretRedactor),
  ];
}
