/**
 * `operator pairing approve CODE` lets the person who got CODE talk to the bot in direct
 * messages; `operator pairing list` shows codes waiting for approval and approved people. Works
 * on the store the environment configures, also while the gateway runs.
 */
import { PairingBook, PairingError, type PairingPerson } from '../gateway/access/index.ts';
import { createStoreFromEnv } from '../store/from-env.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';

/** The usage text of `operator pairing`. */
export const pairingUsage = [
  'operator pairing approve CODE | list',
  '',
  '  approve CODE   let the person who got CODE talk to the bot in direct messages',
  '  list           pending codes and approved people',
].join('\n');

/** Runs `operator pairing <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runPairingCommand(args: string[], env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<number> {
  const [subcommand, ...rest] = parseCommandArgs(args, {}).positionals;
  if (subcommand !== 'approve' && subcommand !== 'list') throw new UsageError(subcommand === undefined ? 'operator pairing needs a subcommand' : `unknown subcommand "${subcommand}"`);
  if (subcommand === 'approve' && rest.length === 0) throw new UsageError('approve needs the CODE the person was given');
  if (subcommand === 'list' && rest.length > 0) throw new UsageError('list takes no arguments');
  if (env.OPERATOR_STORE?.trim() === 'memory') process.stderr.write('Note: OPERATOR_STORE=memory keeps nothing between processes; the gateway\'s pairings are not visible here.\n');
  const store = createStoreFromEnv(env);
  try {
    const book = new PairingBook(store, { now });
    if (subcommand === 'approve') {
      const person = await book.approve(rest.join(''));
      process.stdout.write(`Paired ${describePerson(person)}: they can now talk to the bot in direct messages.\n`);
      return 0;
    }
    const { pending, approved } = await book.list();
    const lines = ['Waiting for approval:'];
    if (pending.length === 0) lines.push('  none');
    for (const request of pending) {
      lines.push(`  ${request.code}  ${describePerson(request)}  asked ${minutes(now() - request.createdAt)} ago, expires in ${minutes(request.expiresAt - now())}`);
    }
    lines.push('Approved:');
    if (approved.length === 0) lines.push('  none');
    for (const person of approved) lines.push(`  ${describePerson(person)}  since ${new Date(person.approvedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof PairingError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

/** `telegram:42 Ada Lovelace (@ada)`. */
function describePerson(person: PairingPerson): string {
  const names = [person.name, person.username ? `(@${person.username})` : undefined].filter(Boolean).join(' ');
  return `${person.platform}:${person.userId}${names ? ` ${names}` : ''}`;
}

function minutes(milliseconds: number): string {
  const count = Math.max(0, Math.round(milliseconds / 60_000));
  return count === 1 ? '1 minute' : `${count} minutes`;
}
