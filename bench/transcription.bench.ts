/**
 * Voice notes (issue 36): what hearing a recording adds beyond the transcription server's own
 * time. A voice note of 60 KB goes through `Transcription.hear` as the gateway runs it (the
 * attachment's download, the `openai` SDK's multipart request, the cost reserved and settled on a
 * real spend book over four caps, the line for the model) to the fake `/v1/audio/transcriptions`;
 * the floor is the same form posted to the same fake with a bare `fetch`, which is the fake's own
 * time and the transport's.
 */
import { FileTooLargeError } from '../src/channels/capped-bytes.ts';
import type { Attachment, InboundMessage } from '../src/channels/types.ts';
import { countedLines, spendLines } from '../src/gateway/budget/budget-gate.ts';
import { SpendBook } from '../src/gateway/budget/spend-book.ts';
import { budgetsSchema } from '../src/gateway/config/budget-schema.ts';
import { transcriberFromEnv } from '../src/media/transcriber-env.ts';
import { Transcription, type HearingPlace } from '../src/media/transcription.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { startFakeModelServer } from '../test/fakes/fake-model-server.ts';
import { median, sample, type BenchResult } from './lib.ts';

export default async function transcriptionBench(): Promise<BenchResult[]> {
  const server = await startFakeModelServer();
  try {
    const bytes = new Uint8Array(60 * 1024).fill(7);
    const voice: Attachment = {
      kind: 'file',
      mediaType: 'audio/ogg',
      name: 'voice-1.ogg',
      size: bytes.length,
      recording: { kind: 'voice', seconds: 12 },
      download: async (options) => {
        if (options?.maxBytes !== undefined && bytes.length > options.maxBytes) throw new FileTooLargeError('the file', options.maxBytes);
        return bytes;
      },
    };
    const message: InboundMessage = { id: '1', dedupeKey: 'u1', sessionKey: 'telegram:group:-100', address: { platform: 'telegram', conversationId: '-100' }, scope: 'group', sender: { id: '7' }, text: '', attachments: [voice], mentioned: true, receivedAt: 0, raw: undefined };
    // Caps high enough that nothing is refused: what is measured is the work, not a refusal.
    const budgets = budgetsSchema.parse({ gateway: { day: 1e6, month: 1e6 }, conversation: { day: 1e6 }, person: { day: 1e6 } });
    const book = new SpendBook({ store: createStore({ driver: 'memory' }), log: () => {} });
    const lines = countedLines(spendLines(budgets, { sessionKey: message.sessionKey, platform: 'telegram', senderId: '7', admin: false, scheduled: false }));
    const place: HearingPlace = {
      tell: async () => {},
      log: () => {},
      reserve: async (worstCaseUsd) => {
        const held = await book.reserve(lines, worstCaseUsd);
        if (!('settle' in held)) throw new Error('refused');
        return held;
      },
      spent: () => {},
    };
    const transcription = new Transcription(transcriberFromEnv({ OPENAI_API_KEY: 'sk-bench-0123456789', OPENAI_BASE_URL: server.openaiBaseURL }));
    const hear = async () => {
      const heard = await transcription.hear(message, place);
      if (heard.transcribed.size !== 1) throw new Error(`not heard: ${heard.lines.join(' ')}`);
    };
    const bare = async () => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'audio/ogg' }), 'voice-1.ogg');
      form.append('model', 'gpt-4o-mini-transcribe');
      form.append('response_format', 'json');
      const response = await fetch(`${server.openaiBaseURL}/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: 'Bearer sk-bench-0123456789' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      await response.json();
    };
    const heardTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let round = 0; round < 5; round++) {
      // The fake keeps every request: emptied each round so its memory does not grow into the figures.
      server.reset();
      floorTimes.push(median(await sample(100, bare)));
      server.reset();
      heardTimes.push(median(await sample(100, hear)));
    }
    const overhead = median(heardTimes) - median(floorTimes);
    return [
      { name: 'a 12 s voice note heard: download, SDK request, caps reserved and settled (median)', value: median(heardTimes), unit: 'ms' },
      { name: 'the same form posted with a bare fetch to the same fake (floor)', value: median(floorTimes), unit: 'ms' },
      { name: "transcription overhead beyond the fake's own time (difference)", value: overhead, unit: 'ms', target: '<= 2 ms', pass: overhead <= 2 },
    ];
  } finally {
    await server.close();
  }
}
