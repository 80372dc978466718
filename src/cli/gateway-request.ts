/**
 * A command line request to the running gateway over its control route (`POST /control/*`): the
 * URL and token are in OPERATOR_HOME/gateway.json, which only the owner can read. When no gateway
 * runs (no control file, its process is gone, or nothing listens at its address any more: the pid
 * was reused), the caller works on the store itself. The token is sent, never printed.
 */
import { isProcessRunning, readControlFile } from '../gateway/control/control-file.ts';
import { operatorHome } from '../store/from-env.ts';

/** How long the gateway gets to answer. */
const requestTimeoutMs = 30_000;

/** What every control route answers: `text` to print, `ok` false when the request was refused, and more by route. */
export type GatewayAnswer = { ok: boolean; text: string } & Record<string, unknown>;

/**
 * Sends `request` as JSON to the running gateway's `path`; resolves to its answer, or undefined when
 * no gateway runs.
 *
 * @throws Error when a gateway runs but does not answer, or refuses the request (its HTTP status and reason).
 */
export async function sendToGateway(path: string, request: unknown, env: NodeJS.ProcessEnv): Promise<GatewayAnswer | undefined> {
  const file = await readControlFile(operatorHome(env));
  if (!file || !isProcessRunning(file.pid)) return undefined;
  let response: Response;
  try {
    response = await fetch(`${file.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${file.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined;
    throw new Error(`the gateway (pid ${file.pid}) did not answer at ${file.url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown> & { error?: unknown };
  if (!response.ok || typeof body.text !== 'string') {
    throw new Error(`the gateway (pid ${file.pid}) refused the request (HTTP ${response.status}): ${typeof body.error === 'string' ? body.error : 'no reason given'}`);
  }
  return { ...body, ok: body.ok === true, text: body.text };
}

/** A control command's reply, from the gateway or the store: `data` is what `--json` prints. */
export interface ControlReply {
  ok: boolean;
  text: string;
  data: unknown;
}

/** What {@link runControlCommand} does. */
export interface ControlCommand {
  /** The control route (`/control/schedule`). */
  path: string;
  request: unknown;
  /** Whether the request changes anything (then a change made on the store says so). */
  changes: boolean;
  /** Print `data` as JSON instead of `text`. */
  json: boolean;
  /** The reply out of the running gateway's answer. */
  fromGateway(answer: GatewayAnswer): ControlReply;
  /** The reply when no gateway runs: the request applied to the store. */
  fromStore(): Promise<ControlReply>;
}

/**
 * Runs a control command: through the running gateway when there is one, else on the store (a
 * change made there is said on stderr: the gateway takes it up when it starts). Prints the reply;
 * resolves to the exit code (1 when the request was refused).
 */
export async function runControlCommand(command: ControlCommand, env: NodeJS.ProcessEnv): Promise<number> {
  const answer = await sendToGateway(command.path, command.request, env);
  let reply = answer && command.fromGateway(answer);
  if (!reply) {
    reply = await command.fromStore();
    if (reply.ok && command.changes) process.stderr.write('No gateway is running: the store was changed directly, and the gateway takes it up when it starts.\n');
  }
  if (!reply.ok) {
    process.stderr.write(`${reply.text}\n`);
    return 1;
  }
  process.stdout.write(command.json ? `${JSON.stringify(reply.data, null, 2)}\n` : `${reply.text}\n`);
  return 0;
}
