/**
 * The OpenAI-compatible API (issue 37): a turn through `POST /v1/chat/completions` (the `openai`
 * SDK, not streamed and streamed) against the same turn through the web chat (`POST
 * /web/messages`, the answer heard on its event stream), in one gateway process, alternating, as
 * ratios against the floor measured in the same run: the bare HTTP round trip into the gateway
 * (`GET /healthz`) plus the bare SDK round trip to the same fake model (its last request sent
 * again), which every turn pays whatever carries it.
 *
 * The target, at most 1 ms over the web chat's turn, is read from the same requests made
 * with `fetch` and the answer read as it comes (the SSE lines until `[DONE]`), as the web chat's
 * side is: the SDK's own client work (its request building, its stream parser) is then not counted
 * as the gateway's. The SDK's figures are given beside them.
 *
 * The API's caller is named in `admins`, so both turns have the owner's seat: the same tools, the
 * same prompt. The fake model runs in a process of its own and answers every call with
 * {@link REPLY}. An API turn ends when the gateway reports the turn's end (after the reply is
 * recorded and delivered); a web chat turn when the page's stream carries the final text.
 */
import Anthropic from '@anthropic-ai/sdk';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { startFakeModelProcess, replayRequest, type FakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, freePort, spawnGateway, type GatewayProcess } from './gateway-process.ts';
import { benchHome, elapsedMs, median, quantile, type BenchResult } from './lib.ts';

const TURNS = 40;
const WARMUP = 5;
const REPLY = 'Here is the answer to your question, in a sentence or two of plain words.';
const TOKEN = 'bench-api-token-0123456789abcdef';
const TIMEOUT_MS = 60_000;

/** The web chat's event stream of one client: resolves each wait when the final text arrives. */
async function openWebStream(origin: string, clientId: string): Promise<{ next(): Promise<void>; close(): void }> {
  const controller = new AbortController();
  const response = await fetch(`${origin}/web/events?clientId=${clientId}`, { signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`web events answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let waiter: (() => void) | undefined;
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (data && /^event: (message|update)$/m.test(event) && (JSON.parse(data) as { text: string }).text === REPLY) waiter?.();
      }
    }
  })();
  return {
    next: () => new Promise<void>((resolve) => (waiter = resolve)),
    close: () => controller.abort(),
  };
}

export default async function openaiEndpointBench(): Promise<BenchResult[]> {
  const model: FakeModelProcess = await startFakeModelProcess({ text: REPLY, chunkSize: 8 });
  const home = benchHome('operator-bench-api-');
  // One caller, so one conversation, per kind of request: each grows by a turn a round, as the web chat's does.
  const users = { sdk: 'bench-sdk', sdkStream: 'bench-sdk-stream', raw: 'bench-raw', rawStream: 'bench-raw-stream' };
  writeFileSync(`${home}/operator.json`, JSON.stringify({ admins: Object.values(users).map((user) => `api:${user}`) }));
  const gateway: GatewayProcess = spawnGateway({
    port: await freePort(),
    env: { HOME: home, OPERATOR_HOME: home, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: model.anthropicBaseURL, OPERATOR_API_TOKEN: TOKEN, OPERATOR_REVIEW_EVERY: '0', OPERATOR_LOG_LEVEL: 'warn' },
  });
  let web: Awaited<ReturnType<typeof openWebStream>> | undefined;
  try {
    await gateway.ready(TIMEOUT_MS);
    const api = new OpenAI({ apiKey: TOKEN, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const sdk = new Anthropic({ apiKey: 'bench-key', baseURL: model.anthropicBaseURL, maxRetries: 0 });
    const clientId = `bench${randomBytes(12).toString('hex')}`;
    web = await openWebStream(gateway.url, clientId);
    const samples = { api: [] as number[], streamed: [] as number[], rawApi: [] as number[], rawStreamed: [] as number[], web: [] as number[], health: [] as number[], model: [] as number[] };
    const post = (content: string, stream: boolean, user: string) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'default', user, messages: [{ role: 'user', content }], stream }),
      });
    for (let index = 0; index < WARMUP + TURNS; index++) {
      let start = process.hrtime.bigint();
      const answer = await api.chat.completions.create({ model: 'default', user: users.sdk, messages: [{ role: 'user', content: `question ${index}` }] });
      const apiMs = elapsedMs(start);
      if (answer.choices[0]?.message.content !== REPLY) throw new Error(`openai-endpoint bench: the API answered ${JSON.stringify(answer.choices[0]?.message.content)}`);

      start = process.hrtime.bigint();
      const stream = await api.chat.completions.create({ model: 'default', user: users.sdkStream, messages: [{ role: 'user', content: `streamed question ${index}` }], stream: true });
      let streamedText = '';
      for await (const chunk of stream) streamedText += chunk.choices[0]?.delta.content ?? '';
      const streamedMs = elapsedMs(start);
      if (streamedText !== REPLY) throw new Error(`openai-endpoint bench: the stream carried ${JSON.stringify(streamedText)}`);

      start = process.hrtime.bigint();
      const rawAnswer = (await (await post(`raw question ${index}`, false, users.raw)).json()) as { choices?: { message?: { content?: string } }[] };
      const rawApiMs = elapsedMs(start);
      if (rawAnswer.choices?.[0]?.message?.content !== REPLY) throw new Error(`openai-endpoint bench: the API answered ${JSON.stringify(rawAnswer)}`);

      start = process.hrtime.bigint();
      const rawStream = await (await post(`raw streamed question ${index}`, true, users.rawStream)).text();
      const rawStreamedMs = elapsedMs(start);
      if (!rawStream.includes('data: [DONE]') || streamedContent(rawStream) !== REPLY) throw new Error(`openai-endpoint bench: the raw stream carried ${JSON.stringify(rawStream.slice(0, 300))}`);

      const heard = web.next();
      start = process.hrtime.bigint();
      const posted = await fetch(`${gateway.url}/web/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId, id: `q${index}`, text: `web question ${index}` }) });
      if (posted.status !== 202) throw new Error(`openai-endpoint bench: the web chat answered ${posted.status}`);
      await heard;
      const webMs = elapsedMs(start);

      start = process.hrtime.bigint();
      const health = await fetch(`${gateway.url}/healthz`);
      await health.arrayBuffer();
      const healthMs = elapsedMs(start);
      const modelMs = await replayRequest(sdk, await model.lastBody());
      if (index < WARMUP) continue;
      samples.api.push(apiMs);
      samples.streamed.push(streamedMs);
      samples.rawApi.push(rawApiMs);
      samples.rawStreamed.push(rawStreamedMs);
      samples.web.push(webMs);
      samples.health.push(healthMs);
      samples.model.push(modelMs);
    }
    const floor = median(samples.health) + median(samples.model);
    const over = (name: 'api' | 'streamed' | 'web') => median(samples[name]) / floor;
    const beyondWeb = (name: 'rawApi' | 'rawStreamed') => median(samples[name]) - median(samples.web);
    const p99 = (values: number[]) => `p99 ${quantile(values, 0.99).toFixed(2)} ms`;
    const compiled = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx';
    return [
      { name: 'floor: GET /healthz round trip, median', value: median(samples.health), unit: 'ms', note: p99(samples.health) },
      { name: 'floor: bare SDK round trip to the fake model, median', value: median(samples.model), unit: 'ms', note: p99(samples.model) },
      { name: 'turn through /v1/chat/completions, not streamed, median', value: median(samples.api), unit: 'ms', note: `${p99(samples.api)}; ${TURNS} turns after ${WARMUP} warm-up ones, ${compiled}` },
      { name: 'turn through /v1/chat/completions, streamed to [DONE], median', value: median(samples.streamed), unit: 'ms', note: p99(samples.streamed) },
      { name: 'the same turn through the web chat, median', value: median(samples.web), unit: 'ms', note: p99(samples.web) },
      { name: 'API turn over the floor (not streamed)', value: over('api'), unit: 'x' },
      { name: 'API turn over the floor (streamed)', value: over('streamed'), unit: 'x' },
      { name: 'web chat turn over the floor', value: over('web'), unit: 'x' },
      { name: 'API turn / web chat turn, the SDK as client (not streamed, medians)', value: over('api') / over('web'), unit: 'x' },
      { name: 'API turn / web chat turn, the SDK as client (streamed, medians)', value: over('streamed') / over('web'), unit: 'x' },
      { name: 'turn through /v1/chat/completions with fetch, not streamed, median', value: median(samples.rawApi), unit: 'ms', note: p99(samples.rawApi) },
      { name: 'turn through /v1/chat/completions with fetch, streamed to [DONE], median', value: median(samples.rawStreamed), unit: 'ms', note: p99(samples.rawStreamed) },
      { name: "API turn's overhead beyond the web chat turn, with fetch, not streamed (medians)", value: beyondWeb('rawApi'), unit: 'ms', target: '<= 1 ms', pass: beyondWeb('rawApi') <= 1 },
      { name: "API turn's overhead beyond the web chat turn, with fetch, streamed (medians)", value: beyondWeb('rawStreamed'), unit: 'ms', target: '<= 1 ms', pass: beyondWeb('rawStreamed') <= 1 },
    ];
  } finally {
    web?.close();
    await gateway.stop();
    await model.close();
  }
}

/** The text a streamed answer's SSE lines carry (their deltas' content, joined). */
function streamedContent(body: string): string {
  let text = '';
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice('data: '.length)) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}
