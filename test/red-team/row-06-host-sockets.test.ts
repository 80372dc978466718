/**
 * Issue 30, row 6: sandboxed commands shared this machine's network when the network was on (the
 * default), so a command reached the host's abstract UNIX sockets (an X display) and its loopback
 * services. Tried again through the real gateway process (Telegram long polling) from the seat that
 * found it: a group member granted `shell` has the model probe the gateway's own port on
 * 127.0.0.1 (where the local web chat is the owner's seat), a loopback service of this machine
 * that hands a secret to whoever connects (as a Redis without a password would), by 127.0.0.1 and
 * by slirp4netns's host address 10.0.2.2, and an abstract UNIX socket of this machine that does the
 * same. Every probe is refused, the services see no connection, the command runs in a namespace
 * of its own (tap0 with 10.0.2.100 and a default route), and no planted secret reaches the model
 * or the chat, plain, base64 or hex. The owner's own commands have a namespace of their own too,
 * and slirp4netns ends with every command.
 *
 * Traffic goes to loopback and to the addresses inside the namespaces the gateway made only.
 *
 * Mutation check (run by hand, result here): with the own network left out in bubblewrap-args.ts
 * (`ownNetwork` taken as false, so network on shares this machine's), both tests fail: the
 * probes reached the gateway (`HTTP/1.1 200 OK`), the loopback service and the abstract socket,
 * whose secrets came back in the tool results, and the command saw this machine's devices.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn, toolResultsOf } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const ada = { id: admin, first_name: 'Ada' };
const member = { id: 3006, first_name: 'Mallory' };
const group = -100606;
const wait = 20_000;

/** What this machine's services hand to whoever connects. */
const loopbackSecret = `row6-LOOPBACK-${randomBytes(8).toString('hex')}`;
const abstractSecret = `row6-ABSTRACT-${randomBytes(8).toString('hex')}`;
const abstractName = `operator-row6-${randomBytes(4).toString('hex')}`;

/** A service of this machine that hands `secret` to every connection, and counts them. */
async function serve(where: { port: 0 } | { abstract: string }, secret: string): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end(`${secret}\n`);
  });
  await new Promise<void>((resolve) => ('abstract' in where ? server.listen(`\0${where.abstract}`, resolve) : server.listen(0, '127.0.0.1', resolve)));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? (address as AddressInfo).port : 0, connections: () => connections };
}

/** Process ids of the slirp4netns processes `parent` started (and has not reaped). */
function slirpsOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return stat.includes('(slirp4netns)') && Number(ppid) === parent && state !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A shell line: connect to `host:port`, print the first line answered under `label`, or that it was refused. */
const probeTcp = (label: string, host: string, port: number, request = '') =>
  `(exec 3<>/dev/tcp/${host}/${port} && printf '${request}' >&3 && echo "${label}: $(head -1 <&3)") 2>/dev/null || echo "${label}: refused"`;

/** A shell line: connect to this machine's abstract socket (padded as node names it), print what it says or why not. */
const probeAbstract = `perl -MSocket -e 'socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die; print connect($s, pack("S a108", AF_UNIX, "\\0${abstractName}")) ? "abstract: " . <$s> : "abstract: $!\\n"'`;

describe("row 6: a sandboxed command reaches none of this machine's loopback services or abstract sockets", () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let gatewayPort: number;
  let loopback: Awaited<ReturnType<typeof serve>>;
  let abstract: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    loopback = await serve({ port: 0 }, loopbackSecret);
    abstract = await serve({ abstract: abstractName }, abstractSecret);
    fakes = await startTelegramGatewayFakes('operator-row6-');
    ({ model, telegram } = fakes);
    // A group an admin approved, whose members are granted shell.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } }, tools: { grants: [{ tools: ['shell'], chats: [`telegram:${group}`] }] } }));
    gateway = await startTelegramGateway(fakes, [admin], 30_000);
    gatewayPort = Number(new URL(await gateway.ready()).port);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    loopback?.server.close();
    abstract?.server.close();
  });

  /** The probes, as one command per target. */
  const probes = () => [
    'ip -o -4 address show; ip route',
    probeTcp('gateway', '127.0.0.1', gatewayPort, 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n'),
    `${probeTcp('service', '127.0.0.1', loopback.port)}; ${probeTcp('service via host address', '10.0.2.2', loopback.port)}`,
    probeAbstract,
  ];

  /** Has the model run the probes in `chatId` as `from`; resolves to the tool results it saw. */
  async function probeFrom(chatId: number, from: typeof ada, text: string, answer: string): Promise<string> {
    model.enqueue({ toolCalls: probes().map((command) => ({ name: 'shell', arguments: { command } })) }, { text: answer });
    telegram.pushUpdate(telegram.textMessage({ chatId, text, from }));
    await findBotMessage(telegram, gateway, chatId, answer, wait);
    return toolResultsOf(model.requests.at(-1) as RecordedRequest);
  }

  /** What every probe must have found: its own namespace, and every door shut. */
  function expectShut(results: string): void {
    expect(results).toMatch(/tap0\s+inet 10\.0\.2\.100\/24/);
    expect(results).toContain('default via 10.0.2.2 dev tap0');
    expect(results).toContain('gateway: refused');
    expect(results).toContain('service: refused');
    expect(results).toContain('service via host address: refused');
    expect(results).toContain('abstract: Connection refused');
    expect(loopback.connections()).toBe(0);
    expect(abstract.connections()).toBe(0);
  }

  const secrets = () => {
    const control = (JSON.parse(readFileSync(join(fakes.home, 'gateway.json'), 'utf8')) as { token: string }).token;
    return [loopbackSecret, abstractSecret, control, telegram.token, fakes.env([admin]).ANTHROPIC_API_KEY!];
  };
  const chatText = (chatId: number) => telegram.messages(chatId).map((message) => message.text).join('\n');

  it("a member granted shell reaches neither the gateway's port, a loopback service nor an abstract socket", async () => {
    // Commands have a network of their own, so a grant of shell no longer needs the web chat's login on loopback.
    expect(gateway.output.all()).toContain('commands: commands run in bubblewrap (network on, a namespace of its own through slirp4netns)');
    expect(gateway.output.all()).not.toContain('web login: required');
    const results = await probeFrom(group, member, `@${telegram.bot.username} check what this machine runs`, 'Probed the machine.');
    expectShut(results);
    expectNoSecretIn(results, secrets(), "the member's tool results");
    expectNoSecretIn(everythingSentToModel(model.requests), secrets(), 'the model');
    expectNoSecretIn(chatText(group), secrets(), 'the group');
    // slirp4netns ended with each command.
    await vi.waitFor(() => expect(slirpsOf(gateway.child.pid!)).toEqual([]));
  });

  it("the owner's own commands have a namespace of their own too", async () => {
    const results = await probeFrom(admin, ada, 'check what this machine runs', 'Probed it for the owner.');
    expectShut(results);
    expectNoSecretIn(everythingSentToModel(model.requests), secrets(), 'the model');
    expectNoSecretIn(chatText(admin), secrets(), "the owner's direct messages");
    await vi.waitFor(() => expect(slirpsOf(gateway.child.pid!)).toEqual([]));
  });
});
