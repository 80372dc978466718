/**
 * The `send_file` tool: the agent sends a file from its workspace to the person it is talking
 * with. The file is checked (exists, a file, not empty, within the platform's limit, holding no
 * secret of this process), copied into the outbox and sent after the turn's reply, as parts of
 * the same delivery (recorded in the ledger with it, so a crash neither loses nor doubles it).
 */
import { basename, dirname } from 'node:path';
import * as z from 'zod';
import type { FileAccess } from '../../tools/files/file-access.ts';
import { turnFiles, workerErrorResult } from '../../tools/files/turn-files.ts';
import { secretValues } from '../../guardrails/secret-redactor.ts';
import { resolvePath } from '../../tools/builtin/paths.ts';
import { errorResult } from '../../tools/builtin/results.ts';
import { defineTool, type Tool, type TurnContext } from '../../tools/tool.ts';
import { formatBytes } from './file-names.ts';
import type { Outbox } from './outbox.ts';

/** What the tool needs from the gateway. */
export interface SendFileToolOptions {
  outbox: Outbox;
  /** The largest file `platform` takes from the bot (0: none, or no such platform here). */
  maxFileBytes(platform: string): number;
  /** Environment whose secret values a file must not contain (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The file workers that read the file, inside the turn's seat's sandbox. */
  files: FileAccess;
}

const parameters = z.object({
  path: z.string().min(1).describe('The file to send: relative to the working directory, or absolute.'),
  name: z.string().min(1).max(150).optional().describe("The file name the chat shows (default: the file's own name)."),
});

/** Creates the `send_file` tool over the gateway's outbox. */
export function createSendFileTool(options: SendFileToolOptions): Tool<typeof parameters> {
  return defineTool({
    name: 'send_file',
    machine: 'read',
    // Sends what it reads into the chat: an injected page must not pick the file.
    acts: true,
    description:
      'Send a file to the person you are talking with in this chat (a report, an export, an image you made). It goes ' +
      'out right after your reply; say in your reply what it is, do not paste its content. At most 10 files per reply.',
    parameters,
    async execute(args, context) {
      const turn = context.turn;
      if (!turn) return errorResult('send_file works only in a chat conversation; here, tell the person where the file is.');
      try {
        return await queueFile(options, turn, resolvePath(context.cwd, args.path), { label: args.path, name: args.name }, context.signal);
      } catch (error) {
        if (error instanceof FileRefusedError) return errorResult(error.message);
        return workerErrorResult(error, args.path, `reading ${args.path}`, context.signal);
      }
    },
  });
}

/** A file that may not be sent; the message says why, for the model. */
export class FileRefusedError extends Error {}

/**
 * Checks the file at `path` (a file, not empty, within the platform's limit, holding no secret of
 * this process) and queues a copy for the turn's reply. Resolves to what the model is told;
 * throws {@link FileRefusedError} when it may not go, or the file system's error.
 */
export async function queueFile(
  options: SendFileToolOptions,
  turn: TurnContext,
  path: string,
  shown: { label: string; name?: string },
  signal?: AbortSignal,
): Promise<string> {
  const limit = options.maxFileBytes(turn.platform);
  if (limit <= 0) throw new FileRefusedError(`this chat (${turn.platform}) cannot receive files from the bot`);
  // Read by the turn's file worker, which sees what the seat may see; the size is checked on the
  // open file before its bytes are read.
  const files = turnFiles(options.files, { turn, signal }, turn.workspace?.cwd ?? dirname(path));
  const read = await files.call<ReadBytes>('readBytes', { path, maxBytes: limit });
  if (read.kind === 'directory') throw new FileRefusedError(`${shown.label} is a folder; send a file (pack the folder into an archive first if it should go as a whole)`);
  if (read.kind === 'special') throw new FileRefusedError(`${shown.label} is not a regular file`);
  if (read.kind === 'too-large') throw new FileRefusedError(`${shown.label} is ${formatBytes(read.size)}; ${turn.platform} takes files up to ${formatBytes(limit)}`);
  if (read.kind !== 'file') throw new FileRefusedError(`${shown.label} is not a regular file`);
  const bytes = Buffer.from(read.data, 'base64');
  if (bytes.length === 0) throw new FileRefusedError(`${shown.label} is empty; chats do not take empty files`);
  if (containsAny(bytes, secretsOf(options.env ?? process.env))) {
    throw new FileRefusedError(`${shown.label} holds the value of one of this gateway's secret settings (a token or key); it is not sent`);
  }
  const file = await options.outbox.addBytes(turn.sessionKey, bytes, shown.name ?? basename(path));
  return `${file.name} (${formatBytes(bytes.length)}, ${file.mediaType}) will be sent after your reply.`;
}

/** What the file worker's `readBytes` answers. */
type ReadBytes = { kind: 'directory' | 'special' } | { kind: 'too-large'; size: number } | { kind: 'file'; size: number; data: string };

const secretBuffers = new WeakMap<NodeJS.ProcessEnv, Buffer[]>();

/** The secret values of `env` as bytes, worked out once per environment. */
function secretsOf(env: NodeJS.ProcessEnv): Buffer[] {
  let buffers = secretBuffers.get(env);
  if (!buffers) {
    buffers = secretValues(env).map((value) => Buffer.from(value));
    secretBuffers.set(env, buffers);
  }
  return buffers;
}

/** Whether `bytes` contain any of `needles`. */
function containsAny(bytes: Buffer, needles: readonly Buffer[]): boolean {
  return needles.some((needle) => bytes.includes(needle));
}
