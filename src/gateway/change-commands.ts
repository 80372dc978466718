/**
 * `/undo` and `/diff` in the chats: the agent's recorded file changes in this conversation (see
 * `src/tools/changes/`). They follow the rights of the conversation's tools: `/undo` writes files,
 * so it is for the owner's seats and those granted `write` here; `/diff` shows files, so it is for
 * the owner's seats and those granted `read`. Both wait for a running turn to end first.
 */
import { join } from 'node:path';
import { diffCommand as diffAnswer, undoCommand as undoAnswer } from '../tools/changes/changes-command.ts';
import type { ChangeLog } from '../tools/changes/change-log.ts';
import type { Command, CommandContext } from './commands.ts';
import { tempDirectoryOf, type Conversation } from './conversations.ts';
import { keySegment } from './dedupe.ts';
import type { ToolGroup } from './config/schema.ts';
import { turnFiles, type TurnFiles } from '../tools/files/turn-files.ts';

/** Longest diff shown in the chat itself; a longer one is attached as a file. */
const inlineDiffChars = 3_000;

export const undoCommand: Command = {
  name: 'undo',
  description: "Undo the agent's last file change (or: turn, file PATH)",
  async run(context) {
    const refusal = await rightsRefusal(context, 'write', 'undo file changes');
    if (refusal) return refusal;
    const { gateway, message, args } = context;
    const conversation = await gateway.conversations.get(message);
    const log = changeLogOf(conversation);
    return gateway.queue.run(message.sessionKey, async () => undoAnswer(log, args, gateway.runtime.cwd, await filesOfSeat(context, conversation)));
  },
};

export const diffCommand: Command = {
  name: 'diff',
  description: "The agent's file changes that stand, as a diff",
  async run(context) {
    const refusal = await rightsRefusal(context, 'read', 'see file changes');
    if (refusal) return refusal;
    const { gateway, message } = context;
    const conversation = await gateway.conversations.get(message);
    const folder = join(await tempDirectoryOf(gateway.runtime, conversation), keySegment(message.sessionKey), 'diffs');
    const log = changeLogOf(conversation);
    const answer = await gateway.queue.run(message.sessionKey, async () =>
      diffAnswer(log, gateway.runtime.cwd, { inlineLimit: inlineDiffChars, folder, files: await filesOfSeat(context, conversation) }),
    );
    if (!answer.file) return answer.text;
    return { text: answer.text, files: [{ path: answer.file.path, name: answer.file.name, mediaType: 'text/x-diff', size: answer.file.size }] };
  },
};

/** Why the sender may not use the command here, or undefined when they may. */
async function rightsRefusal({ gateway, message, admin }: CommandContext, group: ToolGroup, what: string): Promise<string | undefined> {
  const { platform, conversationId, threadId } = message.address;
  const rights = gateway.grants.seatTools({ platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin });
  if (rights.owner || rights.groups.has(group)) return undefined;
  return `You cannot ${what} here: that needs the ${group} tools, which are the owner's unless tools.grants in operator.json gives them to you.`;
}

/**
 * The conversation's file worker with what the sender's seat sees, as a turn of theirs would: the
 * files are read and put back inside that seat's sandbox, never by the gateway itself.
 */
async function filesOfSeat({ gateway, message, admin }: CommandContext, conversation: Conversation): Promise<TurnFiles> {
  const { platform, conversationId, threadId } = message.address;
  const seat = { platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin, sessionKey: message.sessionKey };
  const access = await gateway.turnAccess.forTurn(seat, conversation.agent.tools, await tempDirectoryOf(gateway.runtime, conversation));
  return turnFiles(gateway.runtime.files, { turn: { sessionKey: message.sessionKey, ...access } }, access.workspace?.cwd ?? gateway.runtime.cwd);
}

function changeLogOf({ agent }: Conversation): ChangeLog {
  if (!agent.options.changes) throw new Error('this conversation keeps no file changes');
  return agent.options.changes;
}
