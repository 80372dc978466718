/**
 * A process standing in for a gateway that does not run as root (the test starts it as nobody):
 * it makes the sandbox as the runtime does and runs each command of the JSON list in argv[2] with
 * the `shell` tool, in a workspace of its own; then it waits until no slirp4netns it started is
 * left (or 10 s pass) and prints `{ uid, describe, outputs, slirpsLeft }` as JSON.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createShellTool } from '../../src/tools/builtin/shell.ts';
import { createSandbox } from '../../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';

const commands = JSON.parse(process.argv[2]!) as string[];
const base = mkdtempSync(path.join(tmpdir(), 'operator-own-network-'));
const sandbox = createSandbox(defaultSandboxSettings, { hidden: [path.join(base, 'home')], env: process.env });
const shell = createShellTool({ sandbox });
const turn = { sessionKey: 'telegram:group:1', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd: base, roots: [base] } };
const outputs: string[] = [];
for (const command of commands) {
  const output = await shell.execute({ command }, { signal: new AbortController().signal, cwd: base, toolCallId: 'call', turn });
  outputs.push(typeof output === 'string' ? output : String(output.content));
}

/** slirp4netns processes this process started and has not reaped. */
function slirps(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return stat.includes('(slirp4netns)') && Number(ppid) === process.pid && state !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}
// Each slirp4netns is killed when its command ends; the kernel takes a moment to take its device down.
const deadline = Date.now() + 10_000;
while (slirps().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
rmSync(base, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ uid: process.getuid?.(), describe: sandbox.describe(), outputs, slirpsLeft: slirps().length }));
