/** A local TCP port for a server that must be told its port before it starts. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A port on 127.0.0.1 that was free a moment ago: the kernel picks it for a listener that is
 * closed again at once. Only for when the port must be known in advance (a webhook URL that names
 * it, a server without a "port 0"); anything that can listen on port 0 should.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
