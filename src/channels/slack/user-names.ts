/**
 * Display names of the people who write in Slack channels. A message event carries its sender's
 * name only sometimes (with `user_profile`); a group turn labels every message with its sender
 * (`[Ada Lovelace · slack:U123]`), so a channel message without one is given the name `users.info`
 * says, asked once per person an hour at most. A lookup that fails or takes longer than
 * {@link lookupTimeoutMs} leaves the message without a name (its label is the id alone) and is not
 * tried again for ten minutes; without the `users:read` scope no more lookups are made at all.
 * The message is never held back longer than that, nor lost.
 */
import type { Sender } from '../types.ts';

/** What `users.info` gives of a person (its `user` object). */
export interface SlackUserInfo {
  name?: string;
  real_name?: string;
  profile?: { display_name?: string; real_name?: string };
}

/** Longest a lookup may hold a message. */
export const lookupTimeoutMs = 2_000;
const knownMs = 60 * 60_000;
const failedMs = 10 * 60_000;
const maxPeople = 5_000;

/** Options of {@link createSlackUserNames}. */
export interface SlackUserNamesOptions {
  /** `users.info` for one person; rejects with the Web API's error (its `data.error` says which). */
  lookup(userId: string): Promise<SlackUserInfo | undefined>;
  log(line: string): void;
  now?: () => number;
}

/** The names of people, remembered. */
export interface SlackUserNames {
  /** `sender` with a name from `users.info` when it has none; as it is otherwise. */
  fill(sender: Sender): Promise<Sender>;
}

/** A person's name as looked up (Slack's handle is left out: people are mentioned by id there). */
interface Known {
  name?: string;
  until: number;
}

/** Names of people looked up through `options.lookup`, remembered for an hour. */
export function createSlackUserNames(options: SlackUserNamesOptions): SlackUserNames {
  const now = options.now ?? Date.now;
  const people = new Map<string, Known>();
  const asking = new Map<string, Promise<Known>>();
  let allowed = true;

  const remember = (userId: string, known: Known): Known => {
    people.delete(userId);
    people.set(userId, known);
    if (people.size > maxPeople) people.delete(people.keys().next().value!);
    return known;
  };

  const ask = async (userId: string): Promise<Known> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), lookupTimeoutMs)));
    try {
      const info = await Promise.race([options.lookup(userId), late]);
      if (info === 'late') return remember(userId, { until: now() + failedMs });
      const name = info?.profile?.display_name || info?.profile?.real_name || info?.real_name || undefined;
      return remember(userId, { ...(name ? { name } : {}), until: now() + knownMs });
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      if (code === 'missing_scope' || code === 'not_allowed_token_type') {
        allowed = false;
        options.log('slack: users.info is not allowed (the app needs the users:read scope): channel messages are labelled by id alone');
      }
      return remember(userId, { until: now() + failedMs });
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async fill(sender) {
      if (sender.name || sender.isBot || !allowed) return sender;
      let known = people.get(sender.id);
      if (!known || known.until <= now()) {
        let pending = asking.get(sender.id);
        if (!pending) {
          pending = ask(sender.id).finally(() => asking.delete(sender.id));
          asking.set(sender.id, pending);
        }
        known = await pending;
      }
      return known.name ? { ...sender, name: known.name } : sender;
    },
  };
}
