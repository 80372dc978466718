/**
 * `operator pairing`: approve, decline, revoke and list the people who asked to talk to the bot,
 * and the groups that asked to be served (named `<platform>:<kind>:<id>`, e.g. `telegram:group:-1001234`).
 * Works on the store the environment configures, also while the gateway runs: the gateway reads
 * approvals and revocations from the store on every message, and tells approved people within
 * seconds (or when it next starts) from the notice an approval leaves there.
 *
 * `approve CODE --owner` also makes the person the bot's owner (an admin), and only on a bot that
 * has no admin at all: a stranger cannot ask for it, and nobody can take over a bot that has one.
 */
import { describeGroup, groupLabel, PairingBook, PairingError, parseGroupLabel, type GroupListing, type PairingGroup, type PairingListing, type PairingPerson } from '../gateway/access/index.ts';
import { loadConfig, type GatewayConfig } from '../gateway/config/index.ts';
import { ConfigurationError } from '../core/errors.ts';
import { createStoreFromEnv } from '../store/from-env.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';

/** The usage text of `operator pairing`. */
export const pairingUsage = [
  'operator pairing list | approve CODE [--owner] | deny CODE | revoke PLATFORM:ID | revoke GROUP',
  '',
  '  list                  codes waiting for approval, approved and declined people and groups, the owner',
  '  approve CODE          let the person who got CODE talk to the bot in direct messages, or the group',
  '                        that got it be answered (they are told so)',
  "  approve CODE --owner  also make the person the bot's owner, an admin: only while the bot has no admin",
  '                        (none in admins or OPERATOR_ADMINS, no owner yet)',
  '  deny CODE             decline: the code is dropped and the person (or group) is refused for 24 hours,',
  '                        then may ask for a new code',
  "  revoke PLATFORM:ID    take a person's approval back (e.g. telegram:42): their direct messages are a stranger's again",
  "  revoke GROUP          take a group's approval back (e.g. telegram:group:-1001234, slack:channel:C0123,",
  "                        discord:guild:8123): the group is a stranger's again",
  '',
  'Works on the store of OPERATOR_HOME (or OPERATOR_STORE), also while the gateway runs.',
].join('\n');

type Subcommand = 'list' | 'approve' | 'deny' | 'revoke';

/** Runs `operator pairing <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runPairingCommand(args: string[], env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<number> {
  const { positionals, values } = parseCommandArgs(args, { owner: { type: 'boolean' } });
  const [subcommand, ...rest] = positionals;
  if (subcommand !== 'list' && subcommand !== 'approve' && subcommand !== 'deny' && subcommand !== 'revoke') {
    throw new UsageError(subcommand === undefined ? 'operator pairing needs a subcommand' : `unknown subcommand "${subcommand}"`);
  }
  checkArguments(subcommand, rest, values.owner === true);
  if (env.OPERATOR_STORE?.trim() === 'memory') process.stderr.write('Note: OPERATOR_STORE=memory keeps nothing between processes; the gateway\'s pairings are not visible here.\n');
  // The configuration says who the admins are; --owner needs it, the rest only uses it for hints.
  const config = values.owner ? loadConfig(env).config : readConfig(env);
  if (values.owner && config && config.admins.length > 0) {
    process.stderr.write(`This bot already has ${config.admins.length === 1 ? 'an admin' : 'admins'} (${config.admins.join(', ')}): --owner is only for a bot without one. Add more admins to admins in operator.json (or OPERATOR_ADMINS).\n`);
    return 1;
  }
  const store = createStoreFromEnv(env);
  try {
    const book = new PairingBook(store, { now });
    const output = await run(subcommand, rest, { book, config, owner: values.owner === true, now });
    process.stdout.write(`${output.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof PairingError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

function checkArguments(subcommand: Subcommand, rest: string[], owner: boolean): void {
  if (owner && subcommand !== 'approve') throw new UsageError('--owner goes with approve only');
  if (subcommand === 'list' && rest.length > 0) throw new UsageError('list takes no arguments');
  if ((subcommand === 'approve' || subcommand === 'deny') && rest.length === 0) throw new UsageError(`${subcommand} needs the CODE the person was given`);
  // A group (telegram:group:-1001234) has this shape too: the usage below names both.
  if (subcommand === 'revoke' && (rest.length !== 1 || !personPattern.test(rest[0]!))) throw new UsageError('revoke needs one PLATFORM:ID, e.g. telegram:42 (operator pairing list shows them)');
}

const personPattern = /^([a-z]+):(\S+)$/;

interface Context {
  book: PairingBook;
  config: GatewayConfig | undefined;
  owner: boolean;
  now: () => number;
}

/** The subcommand's output lines. */
async function run(subcommand: Subcommand, rest: string[], { book, config, owner, now }: Context): Promise<string[]> {
  if (subcommand === 'list') return listLines(await book.list(), config, now());
  if (subcommand === 'deny') {
    const denied = await book.deny(rest.join(''));
    const hours = Math.round((denied.until - denied.deniedAt) / 3_600_000);
    if ('group' in denied) return [`Declined ${describeGroup(denied.group)}: code ${denied.code} is dropped. For ${hours} hours the bot stays silent there, with no new code; then a mention gets a new one.`];
    return [`Declined ${describePerson(denied)}: code ${denied.code} is dropped. For ${hours} hours they are told their request was declined; then they may ask for a new code.`];
  }
  const group = subcommand === 'revoke' ? parseGroupLabel(rest[0]!) : undefined;
  if (group) return revokeGroup(book, group, config);
  if (subcommand === 'revoke') {
    const [, platform, userId] = personPattern.exec(rest[0]!)!;
    const revoked = await book.revoke(platform!, userId!);
    const lines = [`Revoked ${describePerson(revoked.person)}: their direct messages are treated like a stranger's again.${revoked.owner ? " They are no longer the bot's owner." : ''}`];
    if (config?.admins.includes(`${platform}:${userId}`)) lines.push(`Note: ${platform}:${userId} is also in admins (operator.json or OPERATOR_ADMINS), which still lets them in: remove them there.`);
    if (config?.allowlists[platform as keyof GatewayConfig['allowlists']]?.users.includes(userId!)) lines.push(`Note: ${userId} is also in allowlists.${platform}.users in operator.json, which still lets them in: remove them there.`);
    return lines;
  }
  const hadOwner = (await book.owner()) !== undefined;
  const person = await book.approve(rest.join(''), { owner });
  if ('group' in person) {
    return [
      `Approved ${describeGroup(person.group)}: the bot answers there now.`,
      'The gateway tells the group so (within seconds while it runs, else when it next starts).',
      `To take it back: operator pairing revoke ${groupLabel(person.group)}`,
    ];
  }
  const told = 'The gateway tells them so in their direct messages (within seconds while it runs, else when it next starts).';
  if (owner) return [`Paired ${describePerson(person)} as the bot's owner: they are an admin now (admin commands such as /pair, and every tool in their direct messages).`, told];
  const lines = [`Paired ${describePerson(person)}: they can now talk to the bot in direct messages.`, told];
  if (config && config.admins.length === 0 && !hadOwner) {
    const id = `${person.platform}:${person.userId}`;
    lines.push(`This bot has no admin yet. To make ${id} its owner, add "${id}" to admins in operator.json (or OPERATOR_ADMINS) and restart the gateway.`);
  }
  return lines;
}

function listLines(listing: PairingListing, config: GatewayConfig | undefined, now: number): string[] {
  const { pending, approved, denied, owner } = listing;
  const lines = ['Waiting for approval:'];
  if (pending.length === 0) lines.push('  none');
  for (const request of pending) {
    lines.push(`  ${request.code}  ${describePerson(request)}  asked ${minutes(now - request.createdAt)} ago, expires in ${minutes(request.expiresAt - now)}`);
  }
  lines.push('Approved:');
  const isOwner = (person: PairingPerson) => owner?.platform === person.platform && owner.userId === person.userId;
  if (approved.length === 0) lines.push('  none');
  for (const person of approved) lines.push(`  ${describePerson(person)}  since ${utc(person.approvedAt)}${isOwner(person) ? '  (owner)' : ''}`);
  if (denied.length > 0) lines.push('Declined:');
  for (const person of denied) lines.push(`  ${describePerson(person)}  refused until ${utc(person.until)}`);
  if (config && config.admins.length === 0 && !owner && pending.length > 0) {
    lines.push('', "This bot has no admin yet: operator pairing approve CODE --owner makes that person the bot's owner.");
  }
  return [...lines, ...groupLines(listing.groups, now)];
}

/** The groups part of `list`, named as `revoke` takes them; nothing while no group ever asked. */
function groupLines(groups: GroupListing, now: number): string[] {
  if (groups.pending.length + groups.approved.length + groups.denied.length === 0) return [];
  const lines = ['Groups waiting for approval:'];
  if (groups.pending.length === 0) lines.push('  none');
  for (const request of groups.pending) {
    const asker = request.askedBy ? `, asked by ${describePerson(request.askedBy)}` : '';
    lines.push(`  ${request.code}  ${describeGroup(request.group)}${asker}  ${minutes(now - request.createdAt)} ago, expires in ${minutes(request.expiresAt - now)}`);
  }
  lines.push('Groups approved:');
  if (groups.approved.length === 0) lines.push('  none');
  for (const approved of groups.approved) {
    const how = approved.movedFrom ? `moved from ${approved.movedFrom}` : approved.addedBy ? `added by ${approved.addedBy}` : `code ${approved.code ?? '?'}`;
    lines.push(`  ${describeGroup(approved.group)}  since ${utc(approved.approvedAt)} (${how})`);
  }
  if (groups.denied.length > 0) lines.push('Groups declined:');
  for (const denied of groups.denied) lines.push(`  ${describeGroup(denied.group)}  refused until ${utc(denied.until)}`);
  return lines;
}

/** `revoke GROUP`: the approval taken back, and what still lets the group in. */
async function revokeGroup(book: PairingBook, group: PairingGroup, config: GatewayConfig | undefined): Promise<string[]> {
  const revoked = await book.groups.revoke(group);
  const label = groupLabel(group);
  if (!revoked) throw new PairingError(`${label} is not an approved group (operator pairing list shows them)`);
  const lines = [`Revoked ${describeGroup(revoked.group)}: the bot no longer answers there; the next mention gets a new code (under groupPolicy approval).`];
  const platform = group.platform as keyof GatewayConfig['groupPolicy'];
  if (config?.groupPolicy[platform] === 'open') lines.push(`Note: groupPolicy.${platform} is "open" in operator.json (or OPERATOR_GROUP_POLICY), which still serves every group: change it there.`);
  const listed = config?.allowlists[group.platform as keyof GatewayConfig['allowlists']]?.chats ?? [];
  if (listed.includes(group.id)) lines.push(`Note: ${group.id} is also in allowlists.${group.platform}.chats in operator.json, which still serves it: remove it there.`);
  // A server's channels are listed by their own ids: whether any is this server's is not known here.
  else if (group.kind === 'guild' && listed.length > 0) lines.push(`Note: channels listed in allowlists.${group.platform}.chats in operator.json are still served: remove this server's there.`);
  return lines;
}

/** The configuration, or `undefined` when it cannot be read (the hints that need it are left out). */
function readConfig(env: NodeJS.ProcessEnv): GatewayConfig | undefined {
  try {
    return loadConfig(env).config;
  } catch (error) {
    if (error instanceof ConfigurationError) return undefined;
    throw error;
  }
}

/** `telegram:42 Ada Lovelace (@ada)`. */
function describePerson(person: PairingPerson): string {
  const names = [person.name, person.username ? `(@${person.username})` : undefined].filter(Boolean).join(' ');
  return `${person.platform}:${person.userId}${names ? ` ${names}` : ''}`;
}

/** `2026-01-01 12:00 UTC`. */
function utc(milliseconds: number): string {
  return `${new Date(milliseconds).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function minutes(milliseconds: number): string {
  const count = Math.max(0, Math.round(milliseconds / 60_000));
  return count === 1 ? '1 minute' : `${count} minutes`;
}
