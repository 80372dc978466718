/**
 * `operator deploy resources`: the profiles' resources (persona, rules, skills, knowledge, the
 * memory to start from) as the Node gateway loads them, bundled per profile and uploaded to the
 * Worker's KV namespace `RESOURCES`, or written to a file for `wrangler kv bulk put`. Files that
 * cannot be loaded or that carry a secret are reported and left out.
 *
 * Who may deploy is whoever runs this on a machine with the Cloudflare account's credentials
 * (wrangler's login or `CLOUDFLARE_API_TOKEN`): there is no chat command for it.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinRoot } from '../resources/layers.ts';
import type { ResourceProblem } from '../resources/types.ts';
import { assertProfile } from '../runtime/profile-check.ts';
import { operatorHome } from '../store/from-env.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';
import { bundleEntries, byteLength, maxValueBytes, type KvEntry } from './deploy/kv-entries.ts';
import { allProfileNames } from './deploy/profile-names.ts';
import { buildResourceBundle } from './deploy/resource-bundle.ts';
import { profileKey, type ResourceBundle } from './deploy/resource-bundle-format.ts';
import { secretValuesOf } from './deploy/secret-check.ts';
import { resourcesBinding, runWranglerUpload } from './deploy/wrangler-upload.ts';

/** The usage text of `operator deploy`. */
export const deployUsage = [
  'operator deploy resources [--profile NAME]... [--local] [--out FILE] [--namespace-id ID]',
  '',
  "  resources          bundle each profile's resources (SOUL.md, SYSTEM.md, AGENT.md, rules, skills,",
  '                     knowledge, MEMORY.md and USER.md to start from) as the gateway loads them, built-in',
  '                     ones overridden by OPERATOR_HOME, and upload them to the Worker\'s KV namespace',
  `                     ${resourcesBinding} with \`npx wrangler kv bulk put\` (remote: your Cloudflare account)`,
  '  --profile NAME     only this profile (repeatable; default: every profile, built in or in OPERATOR_HOME)',
  "  --local            upload to `wrangler dev`'s local store instead of Cloudflare",
  '  --out FILE         write the `wrangler kv bulk put` file (a JSON array of {key, value}) and upload nothing',
  `  --namespace-id ID  upload to this namespace instead of the one bound as ${resourcesBinding} in wrangler.toml`,
  '',
  'Files that cannot be loaded, and files that look like they carry a secret of this environment (an API key,',
  'a token), are reported with their line and not uploaded. The Worker sees a new upload on its next',
  'conversation (or /reload); the memory its agent wrote is kept.',
  '',
  'Who may deploy: whoever runs this on a machine with the Cloudflare credentials (`npx wrangler login` or',
  'CLOUDFLARE_API_TOKEN). There is no chat command for it.',
].join('\n');

/** Runs `operator deploy <what>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runDeployCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { positionals, values } = parseCommandArgs(args, {
    profile: { type: 'string', multiple: true },
    local: { type: 'boolean' },
    out: { type: 'string' },
    'namespace-id': { type: 'string' },
  });
  const [what, ...rest] = positionals;
  if (what !== 'resources') throw new UsageError(what === undefined ? 'operator deploy needs what to deploy: resources' : `unknown subcommand "${what}"`);
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (values.out !== undefined && (values.local || values['namespace-id'] !== undefined)) {
    throw new UsageError('--out writes a file and uploads nothing: --local and --namespace-id go with an upload');
  }

  const home = operatorHome(env);
  const profiles = values.profile ?? allProfileNames(home, builtinRoot);
  for (const profile of profiles) assertProfile(profile, home, builtinRoot);
  const secrets = secretValuesOf(env);
  const bundles: ResourceBundle[] = [];
  const problems: ResourceProblem[] = [];
  for (const profile of [...new Set(profiles)]) {
    const built = await buildResourceBundle({ profile, home, cwd: process.cwd(), env, secrets });
    bundles.push(built.bundle);
    problems.push(...built.problems);
  }
  const { entries } = bundleEntries(bundles, new Date());
  for (const bundle of bundles) process.stdout.write(`${describeBundle(bundle, entries)}\n`);
  reportProblems(problems);
  const oversized = entries.filter((entry) => byteLength(entry.value) > maxValueBytes);
  if (oversized.length > 0) {
    process.stderr.write(`Too big for KV (at most ${kib(maxValueBytes)} a value): ${oversized.map((entry) => `${entry.key} (${kib(byteLength(entry.value))})`).join(', ')}. Move large documents out of the profile's knowledge. Nothing was uploaded.\n`);
    return 1;
  }

  const text = `${JSON.stringify(entries, null, 2)}\n`;
  const total = `${entries.length} entries, ${kib(byteLength(text))}`;
  if (values.out !== undefined) {
    const out = resolve(values.out);
    await writeFile(out, text, { mode: 0o600 });
    process.stdout.write(`Wrote ${total} to ${out}. Upload it with: npx wrangler kv bulk put ${values.out} --binding ${resourcesBinding} --remote\n`);
    return 0;
  }
  return upload(text, total, { local: values.local === true, namespaceId: values['namespace-id'] }, env);
}

/** Writes the bulk file to a private temporary folder and hands it to wrangler. */
async function upload(text: string, total: string, target: { local: boolean; namespaceId?: string }, env: NodeJS.ProcessEnv): Promise<number> {
  const folder = await mkdtemp(join(tmpdir(), 'operator-deploy-'));
  // The bundles hold personas and memory: readable by this user only, and gone afterwards.
  await chmod(folder, 0o700);
  const file = join(folder, 'resources.json');
  try {
    await writeFile(file, text, { mode: 0o600 });
    const where = target.local ? "wrangler dev's local store" : 'Cloudflare';
    const namespace = target.namespaceId ? `namespace ${target.namespaceId}` : `the ${resourcesBinding} namespace`;
    process.stdout.write(`Uploading ${total} to ${namespace} (${where}) with npx wrangler kv bulk put...\n`);
    const code = await runWranglerUpload({ file, local: target.local, namespaceId: target.namespaceId, root: builtinRoot }, env);
    if (code !== 0) {
      process.stderr.write(`wrangler exited with ${code}: nothing may have been uploaded. See its message above${target.local ? '' : ' (logged in? `npx wrangler login`, or CLOUDFLARE_API_TOKEN; without an id in wrangler.toml the Worker must be deployed once first, or pass --namespace-id)'}.\n`);
      return 1;
    }
    process.stdout.write(`Uploaded. The Worker uses them from its next conversation (or /reload).\n`);
    return 0;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** `Profile default: SOUL.md, 5 skills, 2 knowledge documents, rules (1 file), memory: MEMORY.md - 12.3 KiB`. */
function describeBundle(bundle: ResourceBundle, entries: readonly KvEntry[]): string {
  const parts: string[] = [];
  const identity = [bundle.identity.system && 'SYSTEM.md', bundle.identity.soul && 'SOUL.md', bundle.identity.agent && 'AGENT.md'].filter(Boolean);
  parts.push(identity.length > 0 ? identity.join(', ') : 'no identity files (the default persona)');
  parts.push(count(bundle.skills.length, 'skill'), count(bundle.knowledge.length, 'knowledge document'));
  parts.push(bundle.rules.files.length > 0 ? `rules (${count(bundle.rules.files.length, 'file')})` : 'no rules');
  const memory = [bundle.memorySeed.memory !== undefined && 'MEMORY.md', bundle.memorySeed.user !== undefined && 'USER.md'].filter(Boolean);
  if (memory.length > 0) parts.push(`memory to start from: ${memory.join(', ')}`);
  const size = byteLength(entries.find((entry) => entry.key === profileKey(bundle.profile))?.value ?? '');
  return `Profile ${bundle.profile}: ${parts.join(', ')} - ${kib(size)}`;
}

/** Each problem once (a built-in file's problem shows in every profile), with its file and line. */
function reportProblems(problems: readonly ResourceProblem[]): void {
  const lines = [...new Set(problems.map((problem) => `  ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`))];
  if (lines.length === 0) return;
  process.stderr.write(`${count(lines.length, 'problem')} (files left out of the upload, or cut):\n${lines.join('\n')}\n`);
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
