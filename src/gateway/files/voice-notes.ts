/**
 * The gateway's side of transcription (`src/media/transcription.ts`): a message's recordings heard
 * before its turn, their cost reserved and settled on the spending caps the turn counts for (the
 * person's, the conversation's, the gateway's) and reported like a model call's (`model.usage`,
 * kind `transcription`, which the usage ledger and the metrics count) and in its turn's cost
 * (`turn.end`).
 */
import type { InboundMessage } from '../../channels/types.ts';
import type { Heard } from '../../media/transcription.ts';
import { defaultTranscriptionLimits, recordingOf, Transcription, type TranscriptionLimits } from '../../media/transcription.ts';
import { transcriberFromEnv, type Environment } from '../../media/transcriber-env.ts';
import type { TurnContext } from '../../tools/tool.ts';
import type { GatewaySpending } from '../budget/gateway-spending.ts';
import { opsTokens, type OpsEvents } from '../ops/ops-events.ts';
import type { InboundFileReports } from './inbound-files.ts';

/**
 * Hears `message`'s recordings for a turn of `profile` (`admin`: its sender is one); `spent` hears
 * each transcription's cost, which the turn's own report adds (`turn.end`'s `costUsd`).
 */
export type HearRecordings = (message: InboundMessage, turn: { profile: string; admin: boolean; spent?: (costUsd: number) => void }, reports: InboundFileReports) => Promise<Heard>;

/** Options of {@link gatewayHearing}. */
export interface GatewayHearingOptions {
  env: Environment;
  /** Unset: {@link defaultTranscriptionLimits}. */
  limits?: TranscriptionLimits;
  /** The gateway's spending (made after the runner: read when a recording comes). */
  spending?: () => Pick<GatewaySpending, 'reserveCost'>;
  ops?: OpsEvents;
  log(line: string): void;
}

/** How the gateway hears recordings; says at start-up whether it can. */
export function gatewayHearing(options: GatewayHearingOptions): HearRecordings {
  const transcriber = transcriberFromEnv(options.env);
  const transcription = new Transcription(transcriber, options.limits ?? defaultTranscriptionLimits);
  options.log(transcriber ? `voice notes: transcribed by ${transcriber.model} at ${transcriber.host}` : 'voice notes: not transcribed (set OPENAI_API_KEY, OPENAI_BASE_URL or OPERATOR_TRANSCRIBE_BASE_URL)');
  return async (message, turn, reports) => {
    // Most messages bring none: nothing to work out for them.
    if (!message.attachments.some((attachment) => recordingOf(attachment) !== undefined)) return { lines: [], transcribed: new Set() };
    // What the turn's own calls count against: its person (unless an admin), conversation, gateway.
    const context: TurnContext = { sessionKey: message.sessionKey, platform: message.address.platform, senderId: message.sender.id, admin: turn.admin, scheduled: false, profile: turn.profile };
    const spending = options.spending?.();
    return transcription.hear(message, {
      tell: reports.tell,
      log: reports.log,
      // On the caps as a model call is (the gate refuses when paused or at a cap, and reports the spend).
      reserve: spending ? (worstCaseUsd) => spending.reserveCost(context, worstCaseUsd, 'Not transcribed') : undefined,
      spent: ({ model, costUsd }) => {
        const place = { platform: message.address.platform, conversation: message.sessionKey };
        options.ops?.emit({ type: 'model.usage', ...place, profile: turn.profile, provider: 'openai', model, tokens: opsTokens({ input: 0, output: 0 }), costUsd, kind: 'transcription' });
        turn.spent?.(costUsd);
      },
    });
  };
}
