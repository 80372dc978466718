/**
 * The gateway's hearing of recordings (`gatewayHearing`): the real spending (a spend book over a
 * memory store, the caps as configured) and the real ops events, with the real `openai` SDK
 * against the fake `/v1/audio/transcriptions`. A transcription's cost lands on the caps the turn
 * counts for and is reported like a model call's; a cap reached, or calls paused, sends nothing out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Attachment, InboundMessage } from '../../src/channels/types.ts';
import { gatewaySpendGate, spendEvent, type GatewaySpending } from '../../src/gateway/budget/gateway-spending.ts';
import { budgetsSchema } from '../../src/gateway/config/budget-schema.ts';
import { gatewayHearing } from '../../src/gateway/files/voice-notes.ts';
import { OpsEvents, type OpsRecord } from '../../src/gateway/ops/ops-events.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const voiceNote = (seconds: number): Attachment => ({ kind: 'file', mediaType: 'audio/ogg', name: 'voice-3.ogg', recording: { kind: 'voice', seconds }, download: async () => new Uint8Array(64) });
const message = (attachment: Attachment): InboundMessage => ({ id: '3', dedupeKey: 'u3', sessionKey: 'telegram:dm:7', address: { platform: 'telegram', conversationId: '7' }, scope: 'dm', sender: { id: '7' }, text: '', attachments: [attachment], mentioned: true, receivedAt: 0, raw: undefined });

function setUp(personDay: number) {
  const ops = new OpsEvents();
  // Reporting to the ops events as the gateway's gate does (`gateway.ts`).
  const spending: GatewaySpending = gatewaySpendGate({ store: createStore({ driver: 'memory' }), budgets: () => budgetsSchema.parse({ person: { day: personDay } }), log: () => {}, report: (report) => ops.emit(spendEvent(report)) });
  const events: OpsRecord[] = [];
  ops.subscribe((record) => void events.push(record));
  const logged: string[] = [];
  const hear = gatewayHearing({ env: { OPENAI_API_KEY: 'sk-test-hearing-0123456789', OPENAI_BASE_URL: server.openaiBaseURL }, spending: () => spending, ops, log: (line) => void logged.push(line) });
  const told: string[] = [];
  const reports = { log: (line: string) => void logged.push(line), tell: async (text: string) => void told.push(text) };
  return { spending, events, logged, hear, told, reports };
}

describe('voice notes heard by the gateway', () => {
  it('says at start-up which model and host hear them', () => {
    const { logged } = setUp(1);
    expect(logged).toEqual([`voice notes: transcribed by gpt-4o-mini-transcribe at ${new URL(server.url).host}`]);
    expect(logged.join('\n')).not.toContain('sk-test');
  });

  it("counts a transcription's cost on the person's day and reports it as a model call of kind transcription", async () => {
    const { spending, events, hear, reports } = setUp(1);
    server.enqueueTranscript({ text: 'call me back' });
    const heard = await hear(message(voiceNote(120)), { profile: 'default', admin: false }, reports);
    expect(heard.lines).toEqual(['[voice, 2:00] call me back']);
    // Two minutes at $0.003 a minute.
    expect(await spending.book.spent('person telegram:7', 'day')).toBeCloseTo(0.006, 10);
    expect(await spending.book.spent('gateway', 'month')).toBeCloseTo(0.006, 10);
    const usage = events.find((event) => event.type === 'model.usage');
    expect(usage).toMatchObject({ type: 'model.usage', platform: 'telegram', conversation: 'telegram:dm:7', profile: 'default', provider: 'openai', model: 'gpt-4o-mini-transcribe', kind: 'transcription' });
    expect(usage!.type === 'model.usage' && usage!.costUsd).toBeCloseTo(0.006, 10);
    expect(events.find((event) => event.type === 'budget.spent')).toMatchObject({ scopes: ['person', 'gateway'] });
  });

  it("at the person's cap, or with calls paused, sends nothing out and notes why for the model", async () => {
    const { spending, hear, reports, told } = setUp(0.001);
    // 10 minutes would cost $0.03, past the $0.001 cap.
    const capped = await hear(message(voiceNote(600)), { profile: 'default', admin: false }, reports);
    expect(capped.lines).toEqual(['[a voice note (10:00) came with this message but was not transcribed: a spending cap is reached]']);
    await spending.pause();
    const paused = await hear(message(voiceNote(2)), { profile: 'default', admin: true }, reports);
    expect(paused.lines).toEqual(['[a voice note (0:02) came with this message but was not transcribed: model calls are paused by an admin]']);
    expect(server.transcriptions).toEqual([]);
    expect(told).toEqual([]);
    expect(await spending.book.spent('person telegram:7', 'day')).toBe(0);
  });
});
