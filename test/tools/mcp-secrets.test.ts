/**
 * `${NAME}` in an MCP server's `env` and `headers`: put in from the gateway's environment, a
 * missing one named, and what was put in (every header value, too) kept as a secret to scrub.
 */
import { describe, expect, it } from 'vitest';
import { isCredentialHeader, resolvePlaceholders, scrubberOf } from '../../src/tools/mcp/mcp-secrets.ts';

describe('MCP placeholders and secrets', () => {
  it('puts variables in and keeps what they put in as secrets', () => {
    const env = { API_TOKEN: 'abc123def456', REGION: 'eu' };
    const resolved = resolvePlaceholders({ TOKEN: '${API_TOKEN}', WHERE: 'region-${REGION}', PLAIN: 'verbose' }, env);
    expect(resolved.values).toEqual({ TOKEN: 'abc123def456', WHERE: 'region-eu', PLAIN: 'verbose' });
    expect(resolved.missing).toEqual([]);
    // Too short to scrub (it would match ordinary words): 'eu'. A value without a variable is not a secret in `env`.
    expect(resolved.secrets.sort()).toEqual(['abc123def456', 'region-eu']);
  });

  it("counts a credential header's value as a secret, written in the file or not, and names a missing variable", () => {
    const resolved = resolvePlaceholders({ Authorization: 'Bearer ${TOKEN}', 'X-Api-Key': 'inline-key-0042', Accept: 'application/json' }, { TOKEN: 'tok-9876543' }, isCredentialHeader);
    expect(resolved.secrets.sort()).toEqual(['Bearer tok-9876543', 'inline-key-0042', 'tok-9876543']);
    expect(resolvePlaceholders({ Authorization: 'Bearer ${NOT_THERE}' }, {}, isCredentialHeader).missing).toEqual(['NOT_THERE']);
  });

  it('scrubs the longest secret first, every time it appears', () => {
    const scrub = scrubberOf(['tok-9876543', 'Bearer tok-9876543', 'short']);
    expect(scrub('sent Bearer tok-9876543, then tok-9876543 again; short stays')).toBe('sent [REDACTED], then [REDACTED] again; short stays');
    expect(scrubberOf([])('nothing to hide')).toBe('nothing to hide');
  });
});
