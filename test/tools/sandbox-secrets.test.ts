/**
 * No secret of the process that starts commands reaches them, in any encoding: the process (a
 * stand-in for the gateway, with secrets in the environment it was started with) runs the probes
 * an attacker would, through real bubblewrap. The same probes without the sandbox do find the
 * secret, so the check is one that can fail.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { controlToken, decodedForms, encodings, makeWorld, storedMessage } from './sandbox-harness.ts';
import type { SandboxWorld } from './sandbox-harness.ts';
import type { ChildRequest } from './sandboxed-shell-child.ts';

const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const child = fileURLToPath(new URL('./sandboxed-shell-child.ts', import.meta.url));
const secrets = { TELEGRAM_BOT_TOKEN: '7012345678:AAH-sandbox-secret-never-shown', GITHUB_TOKEN: 'ghp_sandboxSecretNeverShown0123456789' };

/** The probes of issue 14: the gateway's environment through /proc and `env`, in plain, base64 and hex. */
const probes = [
  "cat /proc/1/environ | tr '\\0' '\\n'",
  'cat /proc/$PPID/environ | base64 -w0',
  'env; env | base64 -w0; echo; env | od -An -tx1 | tr -d " \\n"',
  'cat /proc/*/environ 2>/dev/null | base64 -w0',
  'for p in /proc/[0-9]*; do cat $p/environ; done 2>/dev/null | od -An -tx1 | tr -d " \\n"',
];

async function runProbes(world: SandboxWorld, mode: ChildRequest['mode'], commands: string[]): Promise<{ kind: string; outputs: string[] }> {
  const request: ChildRequest = { mode, home: world.home, roots: [world.workspace, world.conversation], commands };
  const { stdout } = await promisify(execFile)(process.execPath, [runTs, child, JSON.stringify(request)], {
    env: { PATH: process.env.PATH, OPERATOR_HOME: world.home, ...secrets },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as { kind: string; outputs: string[] };
}

/** The probes (by index) whose output carries `secret`, as it is or encoded. */
function leaks(outputs: string[], secret: string): number[] {
  return outputs.flatMap((output, index) => {
    const encoded = encodings(secret).some((form) => output.includes(form));
    return encoded || decodedForms(output).some((form) => form.includes(secret)) ? [index] : [];
  });
}

describe('secrets and the sandbox', () => {
  let world: SandboxWorld;
  let sandboxed: { kind: string; outputs: string[] };
  let unsandboxed: { kind: string; outputs: string[] };

  beforeAll(async () => {
    world = await makeWorld({ homeInWorkspace: true });
    const files = [`cat ${world.home}/gateway.json | base64 -w0; echo; grep -rs PELICAN ${world.workspace} | base64 -w0`, `find ${world.home} -type f`];
    [sandboxed, unsandboxed] = await Promise.all([runProbes(world, 'auto', [...probes, ...files]), runProbes(world, 'off', [...probes, ...files])]);
  });

  it('ran the probes in bubblewrap, and they read what they could', () => {
    expect(sandboxed.kind).toBe('bubblewrap');
    expect(sandboxed.outputs[0]).toContain('PATH=');
    expect(sandboxed.outputs[0]).toContain('HOME=/tmp');
  });

  it('gives commands no secret of the process that starts them, in plain text, base64 or hex', () => {
    for (const secret of Object.values(secrets)) expect(leaks(sandboxed.outputs, secret), secret).toEqual([]);
  });

  it('gives commands neither the control token nor another conversation, in any encoding', () => {
    for (const secret of [controlToken, storedMessage]) expect(leaks(sandboxed.outputs, secret), secret).toEqual([]);
    expect(sandboxed.outputs.at(-1)).toBe(`${world.conversation}/upload.txt`);
  });

  it('finds the secrets with the same probes when commands are not sandboxed (the checks can fail)', () => {
    expect(unsandboxed.kind).toBe('none');
    for (const secret of [...Object.values(secrets), controlToken, storedMessage]) expect(leaks(unsandboxed.outputs, secret), secret).not.toEqual([]);
  });
});
