/**
 * Recordings heard: the real `openai` SDK against the fake `/v1/audio/transcriptions`, through
 * `transcriberFromEnv` and `Transcription` as the gateway uses them. The attachments are plain
 * objects of the channel contract (what an adapter hands over), their downloads counted.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileTooLargeError } from '../../src/channels/capped-bytes.ts';
import type { Attachment, InboundMessage, Recording } from '../../src/channels/types.ts';
import { BudgetExhaustedError } from '../../src/core/errors.ts';
import { clock } from '../../src/media/recording-words.ts';
import { transcriberFromEnv } from '../../src/media/transcriber-env.ts';
import { Transcription, type HearingPlace, type TranscriptionHold } from '../../src/media/transcription.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';

const key = 'sk-test-transcribe-0123456789';
let server: FakeModelServer;

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** A recording as an adapter hands it over; `downloads` counts the fetches of its bytes. */
function recordingAttachment(options: { bytes?: Uint8Array; recording?: Recording; mediaType?: string; name?: string; size?: number; fail?: Error }) {
  const bytes = options.bytes ?? new TextEncoder().encode('OggS fake voice bytes');
  const counter = { downloads: 0, maxBytes: undefined as number | undefined };
  const attachment: Attachment = {
    kind: 'file',
    mediaType: options.mediaType ?? 'audio/ogg',
    ...(options.name !== undefined ? { name: options.name } : { name: 'voice-7.ogg' }),
    ...(options.size !== undefined && { size: options.size }),
    ...(options.recording !== undefined ? { recording: options.recording } : {}),
    async download(download) {
      counter.downloads++;
      counter.maxBytes = download?.maxBytes;
      if (options.fail) throw options.fail;
      if (download?.maxBytes !== undefined && bytes.length > download.maxBytes) throw new FileTooLargeError('the file', download.maxBytes);
      return bytes;
    },
  };
  return { attachment, counter, bytes };
}

function messageWith(attachments: Attachment[], sessionKey = 'telegram:dm:7'): InboundMessage {
  return { id: '1', dedupeKey: 'u1', sessionKey, address: { platform: 'telegram', conversationId: '7' }, scope: 'dm', sender: { id: '7' }, text: '', attachments, mentioned: true, receivedAt: 0, raw: undefined };
}

/** A place that keeps what the person was told, the log, the spend reserved and settled. */
function place(options: { refuse?: boolean } = {}) {
  const told: string[] = [];
  const logged: string[] = [];
  const holds: { reserved: number; settled?: number }[] = [];
  const spent: { model: string; seconds: number; costUsd: number }[] = [];
  const where: HearingPlace = {
    tell: async (text) => void told.push(text),
    log: (line) => void logged.push(line),
    reserve: async (worstCaseUsd): Promise<TranscriptionHold> => {
      if (options.refuse) throw new BudgetExhaustedError("Not transcribed: this person's spending cap of $1.00 a day is reached");
      const hold: { reserved: number; settled?: number } = { reserved: worstCaseUsd };
      holds.push(hold);
      return { settle: (cost) => void (hold.settled = cost) };
    },
    spent: (usage) => void spent.push(usage),
  };
  return { where, told, logged, holds, spent };
}

const env = () => ({ OPENAI_API_KEY: key, OPENAI_BASE_URL: server.openaiBaseURL });

describe('transcription of recordings', () => {
  it('gives a voice note to the model as the words heard, marked with its length', async () => {
    server.enqueueTranscript({ text: '  see you\n at noon ' });
    const voice = recordingAttachment({ recording: { kind: 'voice', seconds: 3 } });
    const at = place();
    const heard = await new Transcription(transcriberFromEnv(env())).hear(messageWith([voice.attachment]), at.where);
    expect(heard.lines).toEqual(['[voice, 0:03] see you at noon']);
    expect(heard.transcribed.has(voice.attachment)).toBe(true);
    const [request] = server.transcriptions;
    expect(request).toMatchObject({ model: 'gpt-4o-mini-transcribe', fileName: 'voice-7.ogg', mediaType: 'audio/ogg', responseFormat: 'json' });
    expect(Buffer.from(request!.bytes).equals(Buffer.from(voice.bytes))).toBe(true);
    expect(request!.headers.authorization).toBe(`Bearer ${key}`);
    // 3 s of gpt-4o-mini-transcribe at $0.003 a minute: reserved and settled at that, reported once.
    expect(at.holds).toHaveLength(1);
    expect(at.holds[0]!.reserved).toBeCloseTo(0.00015, 12);
    expect(at.holds[0]!.settled).toBeCloseTo(0.00015, 12);
    expect(at.spent).toEqual([{ model: 'gpt-4o-mini-transcribe', seconds: 3, costUsd: at.holds[0]!.settled }]);
    expect(at.told).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('takes the model from OPERATOR_TRANSCRIBE_MODEL and the length from the server when the platform gives none', async () => {
    server.enqueueTranscript({ text: 'hello', seconds: 125 });
    const audio = recordingAttachment({ mediaType: 'audio/mpeg', name: 'memo.mp3' });
    const at = place();
    const heard = await new Transcription(transcriberFromEnv({ ...env(), OPERATOR_TRANSCRIBE_MODEL: 'whisper-1' })).hear(messageWith([audio.attachment]), at.where);
    // Any audio/* file is heard as audio; its length is the one the server billed.
    expect(heard.lines).toEqual(['[audio, 2:05] hello']);
    expect(server.transcriptions[0]).toMatchObject({ model: 'whisper-1', fileName: 'memo.mp3' });
    expect(at.spent[0]!.costUsd).toBeCloseTo((125 / 60) * 0.006, 10);
  });

  it('refuses a recording longer than maxSeconds before downloading it, and says so to both', async () => {
    const voice = recordingAttachment({ recording: { kind: 'voice', seconds: 700 } });
    const at = place();
    const heard = await new Transcription(transcriberFromEnv(env()), { maxSeconds: 600, maxBytes: 1024 }).hear(messageWith([voice.attachment]), at.where);
    expect(voice.counter.downloads).toBe(0);
    expect(heard.lines).toEqual(['[a voice note (11:40) came with this message but was not transcribed: it is longer than the 10:00 that is transcribed]']);
    expect(heard.transcribed.size).toBe(0);
    expect(at.told).toEqual(['Your voice note is 11:40 long, longer than the 10:00 I can transcribe, so I did not hear it: please send a shorter one or type it.']);
    expect(server.transcriptions).toEqual([]);
  });

  it('refuses a recording larger than maxBytes, declared or found while downloading', async () => {
    const declared = recordingAttachment({ recording: { kind: 'video note', seconds: 5 }, mediaType: 'video/mp4', size: 3 * 1024 * 1024 });
    const undeclared = recordingAttachment({ recording: { kind: 'voice' }, bytes: new Uint8Array(4096) });
    const at = place();
    const heard = await new Transcription(transcriberFromEnv(env()), { maxSeconds: 600, maxBytes: 2 * 1024 * 1024 }).hear(messageWith([declared.attachment, undeclared.attachment]), at.where);
    expect(declared.counter.downloads).toBe(0);
    expect(heard.lines[0]).toBe('[a video note (0:05) came with this message but was not transcribed: it is larger than the 2 MB that is transcribed]');
    expect(at.told[0]).toBe('Your video note is 3 MB, larger than the 2 MB I can transcribe, so I did not hear it: please send a shorter one or type it.');
    expect(server.transcriptions).toHaveLength(1);
    // The second was downloaded with the limit, and transcribed (4 KB fits).
    expect(undeclared.counter.maxBytes).toBe(2 * 1024 * 1024);
    expect(heard.lines[1]).toBe('[voice] fake transcript');

    const tooBig = recordingAttachment({ recording: { kind: 'voice' }, bytes: new Uint8Array(4096) });
    const small = await new Transcription(transcriberFromEnv(env()), { maxSeconds: 600, maxBytes: 1000 }).hear(messageWith([tooBig.attachment]), at.where);
    expect(small.lines).toEqual(['[a voice note came with this message but was not transcribed: it is larger than the 1000 bytes that is transcribed]']);
    expect(at.told.at(-1)).toBe('Your voice note is more than 1000 bytes, larger than the 1000 bytes I can transcribe, so I did not hear it: please send a shorter one or type it.');
  });

  it('without an endpoint, tells the person once per conversation what the admin can set, and notes every recording for the model', async () => {
    expect(transcriberFromEnv({})).toBeUndefined();
    const transcription = new Transcription(transcriberFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-x' }));
    expect(transcription.enabled).toBe(false);
    const at = place();
    const first = await transcription.hear(messageWith([recordingAttachment({ recording: { kind: 'voice', seconds: 42 } }).attachment, recordingAttachment({ recording: { kind: 'voice', seconds: 2 } }).attachment]), at.where);
    await transcription.hear(messageWith([recordingAttachment({ recording: { kind: 'voice', seconds: 9 } }).attachment]), at.where);
    expect(first.lines).toEqual([
      '[a voice note (0:42) came with this message but was not transcribed: transcription is not set up on this gateway]',
      '[a voice note (0:02) came with this message but was not transcribed: transcription is not set up on this gateway]',
    ]);
    expect(at.told).toEqual(["I can't hear voice notes yet, so please type your message: the admin can turn transcription on by setting OPENAI_API_KEY, or OPERATOR_TRANSCRIBE_BASE_URL for a local whisper server."]);
    await transcription.hear(messageWith([recordingAttachment({ recording: { kind: 'voice' } }).attachment], 'telegram:dm:8'), at.where);
    expect(at.told).toHaveLength(2);
  });

  it('reports a failing endpoint to the person in one sentence, with nothing spent and no key in the log', async () => {
    server.enqueueTranscript({ error: { status: 500, message: `upstream broke for key ${key}` } });
    const voice = recordingAttachment({ recording: { kind: 'voice', seconds: 4 } });
    const at = place();
    const heard = await new Transcription(transcriberFromEnv(env())).hear(messageWith([voice.attachment]), at.where);
    expect(heard.lines).toEqual(['[a voice note (0:04) came with this message but was not transcribed: the transcription service failed]']);
    expect(at.told).toEqual(['I could not transcribe your voice note (the transcription service failed), so I did not hear it: please send it again or type it.']);
    expect(at.holds).toHaveLength(1);
    expect(at.holds[0]!.reserved).toBeCloseTo(0.0002, 12);
    expect(at.holds[0]!.settled).toBe(0);
    expect(at.spent).toEqual([]);
    expect(at.logged).toHaveLength(1);
    expect(at.logged[0]).toContain('recording not transcribed');
    expect(at.logged.join('\n')).not.toContain(key);
  });

  it('a download that fails is a failure told, not a lost message, and costs nothing', async () => {
    const voice = recordingAttachment({ recording: { kind: 'voice', seconds: 4 }, fail: new Error('HTTP 502') });
    const at = place();
    const heard = await new Transcription(transcriberFromEnv(env())).hear(messageWith([voice.attachment]), at.where);
    expect(heard.lines).toEqual(['[a voice note (0:04) came with this message but was not transcribed: it could not be downloaded from the platform]']);
    expect(at.told).toEqual(['I could not download your voice note, so I did not hear it: please send it again or type it.']);
    expect(at.logged[0]).toContain('recording not downloaded: HTTP 502');
    expect(at.holds.map((hold) => hold.settled)).toEqual([0]);
    expect(server.transcriptions).toEqual([]);
  });

  it('says so when the server heard no words', async () => {
    server.enqueueTranscript({ text: ' ' });
    const heard = await new Transcription(transcriberFromEnv(env())).hear(messageWith([recordingAttachment({ recording: { kind: 'voice', seconds: 1 } }).attachment]), place().where);
    expect(heard.lines).toEqual(['[voice, 0:01] (no words heard)']);
  });

  it('at a spending cap, sends nothing out and leaves the telling to the turn', async () => {
    const at = place({ refuse: true });
    const heard = await new Transcription(transcriberFromEnv(env())).hear(messageWith([recordingAttachment({ recording: { kind: 'voice', seconds: 4 } }).attachment]), at.where);
    expect(heard.lines).toEqual(['[a voice note (0:04) came with this message but was not transcribed: a spending cap is reached]']);
    expect(at.told).toEqual([]);
    expect(server.transcriptions).toEqual([]);
  });

  it('leaves images, documents and video that is not a video note alone', async () => {
    const message = messageWith([
      { kind: 'image', mediaType: 'image/jpeg', download: async () => new Uint8Array(1) },
      { kind: 'file', mediaType: 'application/pdf', name: 'a.pdf', download: async () => new Uint8Array(1) },
      { kind: 'file', mediaType: 'video/mp4', name: 'clip.mp4', download: async () => new Uint8Array(1) },
    ]);
    const heard = await new Transcription(transcriberFromEnv(env())).hear(message, place().where);
    expect(heard).toEqual({ lines: [], transcribed: new Set() });
    expect(server.transcriptions).toEqual([]);
  });
});

describe('the transcription endpoint from the environment', () => {
  it('sends the OpenAI key only to OpenAI or OPENAI_BASE_URL, never to a separate OPERATOR_TRANSCRIBE_BASE_URL', async () => {
    const separate = transcriberFromEnv({ OPENAI_API_KEY: key, OPERATOR_TRANSCRIBE_BASE_URL: server.openaiBaseURL })!;
    expect(separate.host).toBe(new URL(server.url).host);
    await separate.transcribe({ bytes: new Uint8Array(8), name: 'a.ogg', mediaType: 'audio/ogg' });
    expect(server.transcriptions[0]!.headers.authorization).toBe('Bearer no-key-needed');
    const own = transcriberFromEnv({ OPENAI_API_KEY: key, OPERATOR_TRANSCRIBE_BASE_URL: server.openaiBaseURL, OPERATOR_TRANSCRIBE_API_KEY: 'sk-own-whisper-key' })!;
    await own.transcribe({ bytes: new Uint8Array(8), name: 'a.ogg', mediaType: 'audio/ogg' });
    expect(server.transcriptions[1]!.headers.authorization).toBe('Bearer sk-own-whisper-key');
    expect(transcriberFromEnv({ OPENAI_API_KEY: key })).toMatchObject({ model: 'gpt-4o-mini-transcribe', host: 'api.openai.com' });
  });

  it('names recordings lengths as a clock reads', () => {
    expect([clock(0), clock(3), clock(42), clock(600), clock(3725)]).toEqual(['0:00', '0:03', '0:42', '10:00', '1:02:05']);
  });
});
