/**
 * Settings of `operator.json` that a Worker, which has no such file, reads from its variables:
 * what an edited message does (`OPERATOR_EDITED_MESSAGES`, the file's `editedMessages`), where a
 * Slack channel's messages are answered (`SLACK_REPLY_IN_THREAD`, `slack.replyInThread`) and the
 * largest recording transcribed (`OPERATOR_TRANSCRIBE_MAX_SECONDS`, `OPERATOR_TRANSCRIBE_MAX_BYTES`,
 * `transcription.maxSeconds` and `maxBytes`). Each is held to the file setting's own schema; an
 * invalid value is a problem named without its value, and the default stands, as for the
 * variables the Node gateway reads too (`applyEnvironment`).
 */
import type * as z from 'zod';
import type { GatewayConfig } from '../gateway/config/gateway-config.ts';
import { formatIssues, type ConfigProblem } from '../gateway/config/format-issues.ts';
import { operatorConfigSchema } from '../gateway/config/schema.ts';
import { transcriptionSchema } from '../gateway/config/transcription-schema.ts';
import { defaultTranscriptionLimits } from '../media/transcription.ts';

/** One Worker variable standing for a file setting. */
interface WorkerSetting<T> {
  name: string;
  schema: z.ZodType<T>;
  /** The text as the schema's input (a number for numbers). */
  read(text: string): unknown;
  apply(config: GatewayConfig, value: T): GatewayConfig;
}

/** A whole number, or the text itself so the schema reports what kind of thing it got. */
const asInteger = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : text);
const asText = (text: string) => text;
const transcriptionShape = transcriptionSchema.unwrap().shape;
const limitsOf = (config: GatewayConfig) => config.transcription ?? defaultTranscriptionLimits;

const settings = [
  {
    name: 'OPERATOR_EDITED_MESSAGES',
    schema: operatorConfigSchema.shape.editedMessages,
    read: asText,
    apply: (config, editedMessages) => ({ ...config, editedMessages }),
  } satisfies WorkerSetting<GatewayConfig['editedMessages']>,
  {
    name: 'SLACK_REPLY_IN_THREAD',
    schema: operatorConfigSchema.shape.slack.unwrap().shape.replyInThread,
    read: asText,
    apply: (config, replyInThread) => ({ ...config, slack: { ...config.slack, replyInThread } }),
  } satisfies WorkerSetting<'always' | 'mentions' | 'never'>,
  {
    name: 'OPERATOR_TRANSCRIBE_MAX_SECONDS',
    schema: transcriptionShape.maxSeconds,
    read: asInteger,
    apply: (config, maxSeconds) => ({ ...config, transcription: { ...limitsOf(config), maxSeconds } }),
  } satisfies WorkerSetting<number>,
  {
    name: 'OPERATOR_TRANSCRIBE_MAX_BYTES',
    schema: transcriptionShape.maxBytes,
    read: asInteger,
    apply: (config, maxBytes) => ({ ...config, transcription: { ...limitsOf(config), maxBytes } }),
  } satisfies WorkerSetting<number>,
] as const;

/** The names of the variables read here. */
export const workerSettingVariables: readonly string[] = settings.map((setting) => setting.name);

/**
 * `config` with the Worker's own variables of `variables` applied (an empty or blank one counts
 * as unset); `problems` names the invalid ones, never their values.
 */
export function applyWorkerSettings(config: GatewayConfig, variables: Record<string, string | undefined>): { config: GatewayConfig; problems: ConfigProblem[] } {
  let result = config;
  const problems: ConfigProblem[] = [];
  for (const setting of settings as readonly WorkerSetting<unknown>[]) {
    const text = variables[setting.name]?.trim();
    if (!text) continue;
    const input = setting.read(text);
    const parsed = setting.schema.safeParse(input);
    if (!parsed.success) {
      // Everything in a variable is text: "got a string" would only confuse.
      problems.push(...formatIssues(parsed.error.issues, input, setting.name).map((problem) => ({ ...problem, reason: problem.reason.replace(/, got a string$/, '') })));
      continue;
    }
    result = setting.apply(result, parsed.data);
  }
  return { config: result, problems };
}
