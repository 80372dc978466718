/**
 * A second host for tests that need a request from a non-loopback address: a network namespace
 * joined to this machine by a veth pair, with addresses from a random /30 of 10.231.0.0/16 that
 * exist only on the pair. Requests are made from inside the namespace by `node`, and go only to
 * the pair's own addresses. Needs root and iproute2 (CI runs the tests as root); when the
 * namespace cannot be made, {@link createNetworkNamespace} throws saying why, so the test fails
 * rather than passing unnoticed.
 *
 * @example
 * const peer = await createNetworkNamespace();
 * try {
 *   const answer = await peer.request(`http://${peer.hostAddress}:${port}/`);
 * } finally {
 *   await peer.remove();
 * }
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import type { RawRequest, RawResponse } from './raw-http.ts';

/** A request from inside the namespace: the answer, or the error code of a connection that failed (`ECONNREFUSED`). */
export type NamespaceAnswer = ({ ok: true } & RawResponse) | { ok: false; error: string };

/** A network namespace joined to this machine by a veth pair. */
export interface NetworkNamespace {
  name: string;
  /** This machine's end of the pair: what a client in the namespace connects to. */
  hostAddress: string;
  /** The namespace's address: where its requests come from. */
  clientAddress: string;
  /** Sends a request from inside the namespace. */
  request(url: string, init?: RawRequest): Promise<NamespaceAnswer>;
  /** Removes the namespace and the pair (also after a partial set-up). */
  remove(): Promise<void>;
}

/**
 * One `ip` call. The namespace lives as long as its mount at /run/netns/<name>: as root, a
 * slirp4netns started without a private mount namespace unmounted it (see `own-network.ts`).
 */
function ip(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('ip', args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (error && typeof error.code !== 'number' ? String(error.message) : '') });
    });
  });
}

// Runs in the namespace: one request, its answer as one JSON line. The timeout only ends a hung
// request; a refused connection answers at once.
const clientScript = `
const { request } = require('node:http');
const [url, init] = [process.argv[1], JSON.parse(process.argv[2])];
const headers = { ...(init.headers || {}) };
if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
const print = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
const outgoing = request(url, { method: init.method || 'GET', headers, agent: false, timeout: 15000 }, (incoming) => {
  const chunks = [];
  incoming.on('data', (chunk) => chunks.push(chunk));
  incoming.on('end', () => print({ ok: true, status: incoming.statusCode, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') }));
});
outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
outgoing.on('error', (error) => print({ ok: false, error: error.code || error.message }));
outgoing.end(init.body);
`;

/** Creates the namespace and the pair, addressed and up. */
export async function createNetworkNamespace(): Promise<NetworkNamespace> {
  const id = randomBytes(3).toString('hex');
  const name = `operator-test-${id}`;
  const hostSide = `opv${id}h`;
  const peerSide = `opv${id}p`;
  const base = randomInt(0, 64) * 4;
  const third = randomInt(0, 256);
  const hostAddress = `10.231.${third}.${base + 1}`;
  const clientAddress = `10.231.${third}.${base + 2}`;

  const remove = async () => {
    await ip(['netns', 'delete', name]);
    // Deleting the namespace deletes the pair; this end is removed too in case the move failed.
    await ip(['link', 'delete', hostSide]);
  };

  const steps: string[][] = [
    ['netns', 'add', name],
    ['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', peerSide],
    ['link', 'set', peerSide, 'netns', name],
    ['address', 'add', `${hostAddress}/30`, 'dev', hostSide],
    ['link', 'set', hostSide, 'up'],
    ['netns', 'exec', name, 'ip', 'address', 'add', `${clientAddress}/30`, 'dev', peerSide],
    ['netns', 'exec', name, 'ip', 'link', 'set', peerSide, 'up'],
  ];
  for (const step of steps) {
    const result = await ip(step);
    if (result.code !== 0) {
      await remove();
      throw new Error(
        `could not make a second host for this test: \`ip ${step.join(' ')}\` failed (${result.stderr.trim() || `exit ${result.code}`}). ` +
          'It needs root and iproute2 (the CI runs tests as root); it must not be skipped.',
      );
    }
  }

  return {
    name,
    hostAddress,
    clientAddress,
    async request(url, init = {}) {
      const result = await ip(['netns', 'exec', name, process.execPath, '-e', clientScript, url, JSON.stringify(init)]);
      const line = result.stdout.trim().split('\n').at(-1) ?? '';
      if (result.code !== 0 || line === '') throw new Error(`the request from namespace ${name} did not run: ${result.stderr.trim() || `exit ${result.code}`}`);
      return JSON.parse(line) as NamespaceAnswer;
    },
    remove,
  };
}
