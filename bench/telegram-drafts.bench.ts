/**
 * Telegram drafts against edited previews (issue 36, "Telegram drafts"), through two real gateway
 * processes (`node bin/operator.js start`) in the same run: one streams DM replies by drafts
 * (`telegram.drafts` auto, a fake Bot API that takes them), the other by an edited preview
 * (`telegram.drafts` off). Each has a fake Bot API of its own; the fake model, shared, streams
 * the same reply to both. Replies alternate between the two, so the machine's noise falls on both
 * alike, and the edited preview is the floor the drafts are measured against.
 *
 * 1. Time to the first visible token: from the person's message being queued at the fake
 *    Telegram to the first call that shows answer text there (a draft, or the preview's
 *    sendMessage), median of each, and drafts as a ratio of edits.
 * 2. Platform requests per reply (every Bot API call naming the chat: drafts, sends, edits,
 *    typing), and how many of them are edits, each a median.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { startFakeModelServer } from '../test/fakes/fake-model-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../test/fakes/fake-telegram-server.ts';
import { compiledIsFresh, freePort, spawnGateway, type GatewayProcess } from './gateway-process.ts';
import { benchHome, elapsedMs, median, type BenchResult } from './lib.ts';

const REPLIES = 10;
const TIMEOUT_MS = 60_000;
/** About 600 characters, streamed 8 at a time every 20 ms (some 1.5 s): several drafts or edits each. */
const ANSWER = `The first visible words of the answer, then ${'more of it, streamed in small pieces, '.repeat(15)}and the end.`;

/** One gateway with its own fake Bot API. */
interface Side {
  name: 'drafts' | 'edits';
  telegram: FakeTelegram;
  gateway: GatewayProcess;
  home: string;
  firstTokenMs: number[];
  requests: number[];
  edits: number[];
}

export default async function telegramDraftsBench(): Promise<BenchResult[]> {
  const model = await startFakeModelServer();
  model.setDefault({ text: ANSWER, firstChunkSize: 40, chunkSize: 8, delayMs: 20 });
  const sides: Side[] = [];
  try {
    for (const name of ['drafts', 'edits'] as const) {
      const telegram = await startFakeTelegramServer();
      const home = benchHome(`operator-bench-${name}-`);
      writeFileSync(`${home}/operator.json`, JSON.stringify({ telegram: { drafts: name === 'drafts' ? 'auto' : 'off' } }));
      const gateway = spawnGateway({
        port: await freePort(),
        env: {
          HOME: home,
          OPERATOR_HOME: home,
          ANTHROPIC_API_KEY: 'bench-key',
          ANTHROPIC_BASE_URL: model.anthropicBaseURL,
          TELEGRAM_BOT_TOKEN: telegram.token,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          OPERATOR_DM_POLICY: 'open',
          OPERATOR_REVIEW_EVERY: '0',
        },
      });
      sides.push({ name, telegram, gateway, home, firstTokenMs: [], requests: [], edits: [] });
    }
    for (const side of sides) await side.gateway.ready(TIMEOUT_MS);
    // One untimed reply each: what a first answer loads is not what this measures.
    for (const side of sides) await reply(side, 8_000_000, false);
    for (let index = 0; index < REPLIES; index++) for (const side of sides) await reply(side, 8_000_001 + index, true);
    const [drafts, edits] = sides as [Side, Side];
    const compiled = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx';
    return [
      { name: `time to the first visible token in a DM, drafts (p50, ${REPLIES} replies)`, value: median(drafts.firstTokenMs), unit: 'ms', note: compiled },
      { name: `time to the first visible token in a DM, edited preview (p50, ${REPLIES} replies)`, value: median(edits.firstTokenMs), unit: 'ms' },
      { name: 'time to the first visible token, drafts / edited preview (p50s)', value: median(drafts.firstTokenMs) / median(edits.firstTokenMs), unit: 'x' },
      { name: 'Bot API requests per reply, drafts (p50)', value: median(drafts.requests), unit: 'requests' },
      { name: 'Bot API requests per reply, edited preview (p50)', value: median(edits.requests), unit: 'requests' },
      // One: the message the draft ends as is finished by an edit, which a restart repeats safely.
      { name: 'edits per reply, drafts (p50)', value: median(drafts.edits), unit: 'edits', target: '<= 1', pass: median(drafts.edits) <= 1 },
      { name: 'edits per reply, edited preview (p50)', value: median(edits.edits), unit: 'edits' },
    ];
  } finally {
    for (const side of sides) {
      await side.gateway.stop();
      await side.telegram.close();
      rmSync(side.home, { recursive: true, force: true });
    }
    await model.close();
  }
}

/** One reply in a DM of its own; with `record`, its figures go to the side's samples. */
async function reply(side: Side, chat: number, record: boolean): Promise<void> {
  const { telegram } = side;
  const inChat = () => telegram.calls.filter((call) => Number(call.params.chat_id) === chat);
  const shows = (text: unknown) => typeof text === 'string' && text.startsWith('The first visible');
  const start = process.hrtime.bigint();
  let firstMs: number | undefined;
  telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: 'tell me', from: { id: chat, first_name: 'Person' } }));
  // Checked on every change of the fake, so the moment is when the call arrived (give or take a tick).
  await telegram.waitFor(() => {
    if (firstMs === undefined && inChat().some((call) => (call.method === 'sendMessageDraft' || call.method === 'sendMessage') && shows(call.params.text))) firstMs = elapsedMs(start);
    return telegram.messages(chat).some((message) => message.text === ANSWER) || undefined;
  }, TIMEOUT_MS);
  if (!record) return;
  side.firstTokenMs.push(firstMs!);
  side.requests.push(inChat().length);
  side.edits.push(inChat().filter((call) => call.method === 'editMessageText').length);
}
