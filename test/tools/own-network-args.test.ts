/**
 * Who makes a command's own network namespace: `unshare` around bwrap, as root too, so that
 * bubblewrap never sets up the namespace's `lo` while slirp4netns brings it up. Both add
 * 127.0.0.1; when slirp4netns came first, bubblewrap stopped before the command ran
 * (`bwrap: loopback: Failed RTM_NEWADDR`, seen twice under a busy suite). The real sandbox's
 * network is shown by `own-network.test.ts`; this file pins the command lines that keep the race
 * away, as root and not.
 */
import { describe, expect, it } from 'vitest';
import { bubblewrapArgs } from '../../src/tools/sandbox/bubblewrap-args.ts';
import { ownNetworkCommand, slirp4netnsCommand, type OwnNetworkSpec } from '../../src/tools/sandbox/own-network.ts';

const asRoot: OwnNetworkSpec = { slirp4netns: '/usr/bin/slirp4netns', unshare: '/usr/bin/unshare', root: true };
const asUser: OwnNetworkSpec = { ...asRoot, root: false };
const invocation = { mounts: [], cwd: '/work', argv: ['/bin/sh', '-c', 'true'] };

describe("a command's own network namespace", () => {
  it('is made by unshare around bwrap, which then does not make one of its own (as root and not)', () => {
    for (const spec of [asRoot, asUser]) {
      const args = bubblewrapArgs({ ...invocation, network: true, ownNetwork: spec });
      expect(args).not.toContain('--unshare-net');
      expect(args).toEqual(expect.arrayContaining(['--info-fd', '3', '--block-fd', '4']));
      const command = ownNetworkCommand('/usr/bin/bwrap', args, spec);
      expect(command.file).toBe('/usr/bin/unshare');
      expect(command.args.slice(0, command.args.indexOf('--') + 2)).toEqual([...(spec.root ? [] : ['--user', '--map-current-user']), '--net', '--', '/usr/bin/bwrap']);
      expect(command.args.slice(command.args.indexOf('--') + 2)).toEqual(args);
    }
  });

  it('is bwrap\'s own when the network is off (no slirp4netns touches it then)', () => {
    expect(bubblewrapArgs({ ...invocation, network: false })).toContain('--unshare-net');
    expect(bubblewrapArgs({ ...invocation, network: false, ownNetwork: asRoot })).toContain('--unshare-net');
  });

  it('is joined by slirp4netns through the process unshare started (bwrap), confined as root in private mounts', () => {
    expect(slirp4netnsCommand(4242, asRoot)).toEqual({
      file: '/usr/bin/unshare',
      args: ['--mount', '--propagation', 'private', '--', '/usr/bin/slirp4netns', '--configure', '--mtu=65520', '--disable-host-loopback', '--enable-sandbox', '--enable-seccomp', '--ready-fd=3', '--exit-fd=4', '4242', 'tap0'],
    });
    expect(slirp4netnsCommand(4242, asUser)).toEqual({
      file: '/usr/bin/slirp4netns',
      args: ['--configure', '--mtu=65520', '--disable-host-loopback', '--enable-seccomp', '--ready-fd=3', '--exit-fd=4', '4242', 'tap0'],
    });
  });
});
