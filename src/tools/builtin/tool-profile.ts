/**
 * Per-provider settings of the built-in tools: what each provider's models work best with. The
 * tools are the same everywhere; what changes is the shell's time limit when the model names
 * none, and a sentence on which edit tool to reach for first.
 */

/** How the built-in tools present themselves to one provider's models. */
export interface ToolProfile {
  /** The provider (`anthropic`, `openai`, `gemini`; any other gets {@link defaultToolProfile}). */
  provider: string;
  /** `shell`'s timeout when the model gives no `timeout_ms`, in milliseconds. */
  shellTimeoutMs: number;
  /** A sentence added to the description of the tool of that name. */
  hints: Readonly<Record<string, string>>;
}

const preferEditFile = {
  edit_file: 'Prefer this tool for changing existing files.',
  apply_patch: 'For changes across several files or many places at once; edit_file is simpler for one change.',
};

/**
 * The profiles by provider. Anthropic's models are trained on an exact-text replacement editor
 * and on long-running commands (a 120 s shell default); OpenAI's on patches; Gemini's on exact
 * replacement. OpenAI and Gemini keep the 10 s shell default.
 */
export const toolProfiles: Readonly<Record<string, ToolProfile>> = {
  anthropic: { provider: 'anthropic', shellTimeoutMs: 120_000, hints: preferEditFile },
  openai: {
    provider: 'openai',
    shellTimeoutMs: 10_000,
    hints: {
      apply_patch: 'Prefer this tool for changing files, also for a single edit.',
      edit_file: 'For one small replacement; apply_patch is preferred for edits.',
    },
  },
  gemini: { provider: 'gemini', shellTimeoutMs: 10_000, hints: preferEditFile },
};

/** The profile of a provider no entry names (a future one): the tools as they describe themselves. */
export const defaultToolProfile: ToolProfile = { provider: 'default', shellTimeoutMs: 10_000, hints: {} };

/** The profile for `provider` (the `Provider.name` of the model client). */
export function toolProfileFor(provider: string): ToolProfile {
  return Object.hasOwn(toolProfiles, provider) ? toolProfiles[provider]! : defaultToolProfile;
}
