/**
 * A small HTTP server in Node through which the tests inside workerd drive and read the fakes:
 * `POST /<fake>/<method>` with a JSON array of arguments calls that method of that fake and
 * answers its result as JSON; `GET /<fake>/<property>` answers a property (`calls`, `requests`).
 * Only what JSON carries crosses: scripted model replies are data, not functions.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running control server. */
export interface FakeControl {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `fakes` (by name) to the tests in workerd. */
export async function startFakeControl(fakes: Record<string, object>): Promise<FakeControl> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body ?? null));
      };
      const [, name = '', member = ''] = new URL(request.url ?? '/', 'http://control').pathname.split('/');
      const fake = fakes[name] as Record<string, unknown> | undefined;
      if (!fake || !(member in fake)) return answer(404, { error: `no ${name}.${member}` });
      const value = fake[member];
      if (request.method === 'GET') return answer(200, typeof value === 'function' ? null : value);
      if (typeof value !== 'function') return answer(400, { error: `${name}.${member} is not a method` });
      const args = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[]) : [];
      Promise.resolve((value as (...a: unknown[]) => unknown).apply(fake, args)).then(
        (result) => answer(200, result),
        (error: unknown) => answer(500, { error: String(error) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
