/**
 * How a fake platform's child process reports replies to the benchmark: each reply with the
 * moment it arrived, sent over IPC once per turn of the event loop rather than once per reply.
 */

/** A reply seen at the fake: its conversation, and `process.hrtime.bigint()` when it arrived. */
export type SeenReply<Conversation> = [Conversation, string];

/** Returns `report`, which queues replies seen now and sends them as one `replies` message after this turn of the event loop. */
export function replyBatcher<Conversation>(send: (message: { type: 'replies'; items: SeenReply<Conversation>[] }) => void): (conversations: Conversation[]) => void {
  let batch: SeenReply<Conversation>[] = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    if (batch.length === 0) return;
    send({ type: 'replies', items: batch });
    batch = [];
  };
  return (conversations) => {
    if (conversations.length === 0) return;
    const now = process.hrtime.bigint().toString();
    for (const conversation of conversations) batch.push([conversation, now]);
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
}
