/**
 * Resource bundles for the Worker's tests, built in Node (global set-up) by the same code as
 * `operator deploy resources`, from a throwaway OPERATOR_HOME over the built-in resources: the
 * pairs `wrangler kv bulk put` would write, before and after a person changed the profile.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleEntries, type KvEntry } from '../../src/cli/deploy/kv-entries.ts';
import { buildResourceBundle } from '../../src/cli/deploy/resource-bundle.ts';

/** The profile the bundles are for (its own name: no other test's `default`). */
export const testProfile = 'quill';

/** The bulk pairs of the first upload and of one made after SOUL.md changed and a skill was added. */
export interface TestResourceEntries {
  first: KvEntry[];
  changed: KvEntry[];
}

const skill = (name: string, description: string, body: string): string => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

/** Builds both uploads; the folders they were built from are removed again. */
export async function buildTestResourceEntries(): Promise<TestResourceEntries> {
  const home = mkdtempSync(join(tmpdir(), 'operator-worker-resources-'));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  };
  const build = async (): Promise<KvEntry[]> => {
    // An empty environment: no secret of the developer's may refuse (or reach) a file.
    const built = await buildResourceBundle({ profile: testProfile, home, cwd: home, env: {} });
    return bundleEntries([built.bundle], new Date()).entries;
  };
  try {
    write(`profiles/${testProfile}/SOUL.md`, 'You are Quill, the release manager of the Acme team.\n');
    write(`profiles/${testProfile}/MEMORY.md`, '- Releases go out on Tuesdays.\n');
    write(`profiles/${testProfile}/skills/ship-release/SKILL.md`, skill('ship-release', 'Ship a release of the Acme app, tagged and announced', '# Ship\n\n1. Tag the release.\n2. Announce it in #releases.'));
    write('knowledge/release-runbook.md', '# Release runbook\n\nRoll back with the previous tag when the canary fails.\n');
    const first = await build();
    write(`profiles/${testProfile}/SOUL.md`, 'You are Quill, the release captain of the Acme team.\n');
    write(`profiles/${testProfile}/skills/hotfix/SKILL.md`, skill('hotfix', 'Ship an urgent fix outside the release train', '# Hotfix\n\nBranch from the last tag.'));
    const changed = await build();
    return { first, changed };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
