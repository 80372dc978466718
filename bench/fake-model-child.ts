/** The child side of `fake-model-process.ts`: serves the fake model and the last request body. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeModelServer } from '../test/fakes/fake-model-server.ts';
import type { ReplySpec } from '../test/fakes/fake-model-types.ts';

const reply = JSON.parse(process.argv[2] ?? '{"text":"ok"}') as ReplySpec;
const server = await startFakeModelServer();
server.setDefault(reply);
const control = createServer((_request, response) => {
  const last = server.requests.at(-1);
  // Keep only the newest request: a long benchmark must not grow this process.
  server.requests.splice(0, server.requests.length - 1);
  if (last?.receivedAt !== undefined) response.setHeader('x-received-at', String(last.receivedAt));
  response.end(last?.rawBody ?? '');
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
const port = (control.address() as AddressInfo).port;
process.stdout.write(`${JSON.stringify({ url: server.url, control: `http://127.0.0.1:${port}` })}\n`);
process.on('SIGTERM', async () => {
  control.close();
  await server.close();
  process.exit(0);
});
