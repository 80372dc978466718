/**
 * A sandboxed command's network of its own. bubblewrap starts the command in a new network
 * namespace, tells the spawner the sandbox's process id (`--info-fd`) and holds the command back
 * (`--block-fd`); outside, `slirp4netns` joins a tap device (`tap0`, 10.0.2.100/24, default route
 * through 10.0.2.2, names resolved by 10.0.2.3) to that namespace, with outbound traffic made by
 * slirp4netns itself. Only once the device is configured does the command start. Inside, nothing
 * of this machine's loopback (`--disable-host-loopback`, and the namespace's own `lo`) and none
 * of its abstract UNIX sockets (they belong to a network namespace) are reachable.
 *
 * The network namespace is made by util-linux's `unshare` around `bwrap`, which shares it, and
 * slirp4netns joins `bwrap`'s own namespaces. When operator is not root, `unshare` makes a user
 * namespace (mapping the user to itself) too: bubblewrap's own network namespace would belong to a
 * user namespace that no process stays in (bubblewrap nests a second one to mount `/dev/pts`),
 * which slirp4netns cannot join. As root, bubblewrap could make the namespace itself, but then it
 * adds `127.0.0.1` to the namespace's `lo` while slirp4netns, already started, brings `lo` up
 * (which adds that address too): when slirp4netns came first, bubblewrap's request failed and it
 * stopped before the command ran (`bwrap: loopback: Failed RTM_NEWADDR`, seen under load). With
 * the namespace made outside, bubblewrap leaves `lo` alone and slirp4netns alone brings it up.
 *
 * As root, slirp4netns confines itself in a mount namespace of its own (`--enable-sandbox`), where
 * it makes only `/` private before it detaches the old root: a mount below `/` that this machine
 * shares (`/run/netns`, once `ip netns add` has run) stays a peer of the machine's, and the
 * detach unmounts the machine's own copies too, so every namespace `ip netns` named here would
 * lose its mount (and, unused, cease to exist). `unshare --mount --propagation private` starts it
 * in a namespace whose mounts are all private first, so its unmounts stay its own.
 *
 * slirp4netns ends with the command: it is killed when the sandbox's process exits, and its
 * `--exit-fd` is a pipe from the spawner, so it also ends when the spawner itself dies.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** What the spawner needs to give a command its own network (see `SpawnSpec.ownNetwork`). */
export interface OwnNetworkSpec {
  /** The `slirp4netns` executable (found by `detectSlirp4netns`). */
  slirp4netns: string;
  /**
   * util-linux's `unshare`: it makes the network namespace (and, when operator is not root, a
   * user namespace) around `bwrap`, and as root starts slirp4netns in a mount namespace whose
   * mounts are all private, so the unmounts of its own sandbox do not reach this machine's.
   */
  unshare: string;
  /** Whether operator runs as root (then slirp4netns confines itself in a sandbox of its own). */
  root: boolean;
}

/**
 * The descriptors of `bwrap` that carry the hand-over: where it writes the sandbox's process id,
 * where it waits for the go, and where it reads the sandbox's `/etc/resolv.conf`.
 */
export const ownNetworkFds = { info: 3, block: 4, resolvConf: 5 } as const;

/** What `child_process.spawn` gives `bwrap` beyond its stdin, stdout and stderr (fds 3, 4 and 5). */
export const ownNetworkStdio = ['pipe', 'pipe', 'pipe'] as const;

/**
 * The namespace's resolver is slirp4netns's (it forwards to this machine's): the machine's own
 * `/etc/resolv.conf` may name a resolver on its loopback, which the namespace does not have.
 */
export const ownNetworkResolvConf = 'nameserver 10.0.2.3\n';

/** Characters kept of what bwrap writes on its info descriptor and of slirp4netns's error output. */
const maxKeptChars = 4_096;

/**
 * The program to spawn for a sandbox with a network of its own: `bwrap` inside the network
 * namespace (and, when not root, the user namespace) `unshare` makes.
 */
export function ownNetworkCommand(file: string, args: readonly string[], spec: OwnNetworkSpec): { file: string; args: string[] } {
  const namespaces = spec.root ? ['--net'] : ['--user', '--map-current-user', '--net'];
  return { file: spec.unshare, args: [...namespaces, '--', file, ...args] };
}

/**
 * slirp4netns's command line for the namespaces of process `pid`. The large MTU makes bulk
 * transfers cheaper; `--enable-seccomp` confines slirp4netns itself (it parses every packet the
 * command sends, outside the sandbox), and as root so does `--enable-sandbox` (a mount namespace
 * of its own, no capabilities), which needs privileges an unprivileged slirp4netns lacks.
 */
export function slirp4netnsArgs(pid: number, spec: OwnNetworkSpec): string[] {
  const confined = spec.root ? ['--enable-sandbox', '--enable-seccomp'] : ['--enable-seccomp'];
  return ['--configure', '--mtu=65520', '--disable-host-loopback', ...confined, '--ready-fd=3', '--exit-fd=4', String(pid), 'tap0'];
}

/** The running hand-over of {@link attachOwnNetwork}. */
export interface OwnNetwork {
  /** Ends slirp4netns (or keeps it from starting). Call it once the sandbox's process has exited, or to give up. */
  stop(): void;
}

/**
 * Gives the just spawned `bwrap` (spawned with {@link ownNetworkStdio} after its stdio, with the
 * arguments `bubblewrapArgs` makes for an own network) its network, then lets its command start.
 * `onFailure` is called when slirp4netns cannot be started or stops before the network is up:
 * the command is then still held back, and the caller should end it.
 */
export function attachOwnNetwork(child: ChildProcess, spec: OwnNetworkSpec, onFailure: (error: Error) => void): OwnNetwork {
  // Node types `stdio` as a tuple of five; the sixth is there when it was asked for.
  const stdio = child.stdio as readonly unknown[];
  const info = stdio[ownNetworkFds.info] as Readable;
  const block = stdio[ownNetworkFds.block] as Writable;
  const resolvConf = stdio[ownNetworkFds.resolvConf] as Writable;
  // bwrap may be gone before it reads or writes any of them: that is its own failure, reported
  // through its exit and error output.
  for (const stream of [info, block, resolvConf]) stream.on('error', () => undefined);
  resolvConf.end(ownNetworkResolvConf);

  let stopped = false;
  let ready = false;
  let slirp: ChildProcess | undefined;
  const fail = (error: Error) => {
    if (stopped || ready) return;
    stopped = true;
    onFailure(error);
  };

  let written = '';
  info.setEncoding('utf8');
  info.on('data', (chunk: string) => (written = (written + chunk).slice(0, maxKeptChars)));
  info.on('end', () => {
    // Once bwrap has written it, it runs in the namespaces `unshare` made (`unshare` execs it:
    // the spawned process is bwrap).
    const sandboxPid = childPid(written);
    // Without a process id bwrap failed before it started the sandbox, and says so itself.
    if (stopped || sandboxPid === undefined || child.pid === undefined) return;
    slirp = startSlirp4netns(spec, child.pid, {
      ready: () => {
        if (stopped) return;
        ready = true;
        block.end('1');
      },
      failed: fail,
    });
  });

  return {
    stop() {
      stopped = true;
      block.destroy();
      if (slirp === undefined) return;
      if (slirp.exitCode === null && slirp.signalCode === null) slirp.kill('SIGKILL');
      slirp.stdio[4]?.destroy();
    },
  };
}

/** The sandbox's process id from what `--info-fd` wrote (`{"child-pid": 123, ...}`). */
function childPid(text: string): number | undefined {
  try {
    const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The program that runs slirp4netns for `pid`'s namespace: slirp4netns itself, or, as root,
 * `unshare`, which execs it (same process) in a mount namespace whose mounts are all private.
 */
export function slirp4netnsCommand(pid: number, spec: OwnNetworkSpec): { file: string; args: string[] } {
  const args = slirp4netnsArgs(pid, spec);
  if (!spec.root) return { file: spec.slirp4netns, args };
  return { file: spec.unshare, args: ['--mount', '--propagation', 'private', '--', spec.slirp4netns, ...args] };
}

/**
 * Starts slirp4netns for `pid`'s namespace. It gets no environment, a process group of its own
 * (a Ctrl-C meant for the terminal chat is not for it) and a pipe as its `--exit-fd`.
 */
function startSlirp4netns(spec: OwnNetworkSpec, pid: number, on: { ready: () => void; failed: (error: Error) => void }): ChildProcess {
  const command = slirp4netnsCommand(pid, spec);
  const slirp = spawn(command.file, command.args, { env: {}, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let errors = '';
  slirp.stderr!.setEncoding('utf8');
  slirp.stderr!.on('data', (chunk: string) => (errors = (errors + chunk).slice(-maxKeptChars)));
  for (const stream of [slirp.stdio[3], slirp.stdio[4]]) stream?.on('error', () => undefined);
  slirp.stdio[3]!.once('data', () => on.ready());
  slirp.on('error', (error) => on.failed(new Error(`the command's own network could not be made: ${spec.slirp4netns} could not be run (${error.message})`)));
  slirp.on('exit', (code, signal) => {
    const why = lastLine(errors) ?? `exit code ${code ?? signal}`;
    on.failed(new Error(`the command's own network could not be made: slirp4netns stopped before it was ready (${why})`));
  });
  return slirp;
}

/** The last non-empty line of `text`, shortened. */
function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim())
    .findLast((line) => line.length > 0)
    ?.slice(0, 300);
}
