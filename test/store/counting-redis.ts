/**
 * A Redis-speaking TCP server that counts the connections made to it and records the commands it
 * receives, for tests about when a client connects. It answers just enough RESP for ioredis:
 * INFO (the ready check), GET (always a miss), PING, and `+OK` to anything else.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** The running fake. */
export interface CountingRedis {
  url: string;
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Every command received, upper-cased name first: `['GET', 'key']`. */
  readonly commands: string[][];
  /** Resolves once `count` connections have been accepted. */
  connected(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake on a port the kernel picks. */
export async function startCountingRedis(): Promise<CountingRedis> {
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    for (const waiter of waiters.filter((entry) => entry.count <= connections)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const parsed = parseCommand(pending);
        if (!parsed) break;
        pending = pending.subarray(parsed.length);
        commands.push(parsed.command);
        socket.write(answer(parsed.command));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get connections() {
      return connections;
    },
    commands,
    connected(count) {
      if (connections >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(command: string[]): string {
  switch (command[0]) {
    case 'INFO': {
      const info = '# Server\r\nredis_version:7.2.0\r\n# Persistence\r\nloading:0\r\n';
      return `$${Buffer.byteLength(info)}\r\n${info}\r\n`;
    }
    case 'GET':
      return '$-1\r\n';
    case 'PING':
      return '+PONG\r\n';
    default:
      return '+OK\r\n';
  }
}

/** One RESP array of bulk strings (or an inline command) from the front of `buffer`, if complete. */
function parseCommand(buffer: Buffer): { command: string[]; length: number } | undefined {
  const text = buffer.toString('latin1');
  if (!text.startsWith('*')) {
    const end = text.indexOf('\r\n');
    if (end < 0) return undefined;
    const words = text.slice(0, end).trim().split(/\s+/);
    return { command: [words[0]!.toUpperCase(), ...words.slice(1)], length: end + 2 };
  }
  let position = text.indexOf('\r\n');
  if (position < 0) return undefined;
  const count = Number(text.slice(1, position));
  position += 2;
  const command: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const lineEnd = text.indexOf('\r\n', position);
    if (lineEnd < 0) return undefined;
    const size = Number(text.slice(position + 1, lineEnd));
    const start = lineEnd + 2;
    if (text.length < start + size + 2) return undefined;
    command.push(text.slice(start, start + size));
    position = start + size + 2;
  }
  command[0] = command[0]!.toUpperCase();
  return { command, length: position };
}
