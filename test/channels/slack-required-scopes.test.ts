/**
 * The Slack app manifest in `src/channels/slack/README.md` asks for exactly the bot scopes
 * `required-scopes.ts` lists (what `operator doctor` compares a token's grants with).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requiredSlackScopes } from '../../src/channels/slack/required-scopes.ts';

/** The bot scopes of the README's manifest (its one YAML block). */
function manifestScopes(): string[] {
  const readme = readFileSync(new URL('../../src/channels/slack/README.md', import.meta.url), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('no yaml block in src/channels/slack/README.md');
  const manifest = parse(block) as { oauth_config?: { scopes?: { bot?: string[] } } };
  return manifest.oauth_config?.scopes?.bot ?? [];
}

describe('the Slack scopes', () => {
  it('are the ones the manifest in the README asks for', () => {
    const scopes = manifestScopes();
    expect(scopes.length).toBeGreaterThan(0);
    expect([...scopes].sort()).toEqual(Object.keys(requiredSlackScopes).sort());
  });
});
