/**
 * A process standing in for the gateway: its own environment (set when it was started, as the
 * gateway's is) holds the secrets. It makes the sandbox as the runtime does and runs each command
 * of the JSON request in argv[2] with the `shell` tool, printing `{ kind, outputs }` as JSON.
 */
import { createShellTool } from '../../src/tools/builtin/shell.ts';
import { createSandbox } from '../../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import type { SandboxSettings } from '../../src/tools/sandbox/sandbox.ts';

/** What the test asks the process to run. */
export interface ChildRequest {
  mode: SandboxSettings['mode'];
  home: string;
  roots: string[];
  commands: string[];
}

const request = JSON.parse(process.argv[2]!) as ChildRequest;
const sandbox = createSandbox({ ...defaultSandboxSettings, mode: request.mode }, { hidden: [request.home], env: process.env });
const shell = createShellTool({ sandbox });
const turn = { sessionKey: 'telegram:group:1', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd: request.roots[0]!, roots: request.roots } };
const outputs: string[] = [];
for (const command of request.commands) {
  const output = await shell.execute({ command }, { signal: new AbortController().signal, cwd: request.roots[0]!, toolCallId: 'call', turn });
  outputs.push(typeof output === 'string' ? output : String(output.content));
}
process.stdout.write(JSON.stringify({ kind: sandbox.kind, outputs }));
