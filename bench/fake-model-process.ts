/**
 * Runs the fake model server in a child process, as a real model server would be: its CPU work
 * and garbage then stay out of the measured process. The child answers every request with the
 * reply given on the command line and serves the raw body of the last request it received at
 * `GET /last` on a second port (for benchmarks that replay the agent's exact request).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReplySpec } from '../test/fakes/fake-model-types.ts';

/** A fake model server running in its own process. */
export interface FakeModelProcess {
  anthropicBaseURL: string;
  openaiBaseURL: string;
  /** The raw body of the last model request the server received. */
  lastBody(): Promise<string>;
  /** The last model request: its raw body and when the server had read it (`process.hrtime`, in ms). */
  lastRequest(): Promise<{ body: string; receivedAt: number | undefined }>;
  close(): Promise<void>;
}

const childEntry = fileURLToPath(new URL('./fake-model-child.ts', import.meta.url));
const runner = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

/** Starts the child and waits until it reports its ports. */
export async function startFakeModelProcess(reply: ReplySpec): Promise<FakeModelProcess> {
  const child: ChildProcess = spawn(process.execPath, [runner, childEntry, JSON.stringify(reply)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = await new Promise<{ url: string; control: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line) as { url: string; control: string });
    });
    child.once('exit', (code) => reject(new Error(`fake model process exited with ${code}`)));
  });
  const lastRequest = async () => {
    const response = await fetch(`${ready.control}/last`);
    const stamp = response.headers.get('x-received-at');
    return { body: await response.text(), receivedAt: stamp === null ? undefined : Number(stamp) };
  };
  return {
    anthropicBaseURL: ready.url,
    openaiBaseURL: `${ready.url}/v1`,
    lastBody: async () => (await lastRequest()).body,
    lastRequest,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The floor's model call: the last request the fake received, sent again through the bare SDK
 * and streamed to its end, as the provider does. Resolves with its duration in ms.
 */
export async function replayLastRequest(sdk: Anthropic, model: Pick<FakeModelProcess, 'lastBody'>): Promise<number> {
  return replayRequest(sdk, await model.lastBody());
}

/** {@link replayLastRequest} for a request body already fetched. */
export async function replayRequest(sdk: Anthropic, body: string): Promise<number> {
  const request = JSON.parse(body) as Anthropic.MessageCreateParamsStreaming;
  const start = process.hrtime.bigint();
  const stream = await sdk.messages.create({ ...request, stream: true });
  for await (const _event of stream) {
    // consume the whole stream
  }
  return Number(process.hrtime.bigint() - start) / 1e6;
}
