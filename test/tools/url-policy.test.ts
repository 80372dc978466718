/** Which addresses the agent's browser (and web fetching) may reach. */
import { describe, expect, it } from 'vitest';
import { checkUrl, isPrivateAddress, matchesUrlPattern, type UrlPolicy } from '../../src/tools/net/url-policy.ts';

const closed: UrlPolicy = { allowPrivateNetwork: false, allowUrls: [], blockUrls: [] };
/** A resolver for made-up names, so no test depends on real DNS. */
const names: Record<string, string[]> = { 'public.test': ['93.184.216.34'], 'sneaky.test': ['93.184.216.34', '10.1.2.3'], 'six.test': ['2606:4700::1111'] };
const lookup = async (host: string) => {
  const found = names[host];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

describe('url policy', () => {
  it('knows private, loopback, link-local and other non-public addresses', () => {
    for (const address of ['127.0.0.1', '10.0.0.8', '172.20.1.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::5', '::ffff:127.0.0.1', '[::1]']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(isPrivateAddress(address), address).toBe(false);
  });

  it('refuses this machine and private networks by default, by address or by name', async () => {
    for (const url of ['http://127.0.0.1:8787/', 'http://localhost/', 'http://app.localhost/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://sneaky.test/']) {
      expect(await checkUrl(url, closed, lookup), url).toMatch(/on this machine or a private network/);
    }
    expect(await checkUrl('https://public.test/page', closed, lookup)).toBeUndefined();
    expect(await checkUrl('https://six.test/', closed, lookup)).toBeUndefined();
    expect(await checkUrl('http://127.0.0.1/', { ...closed, allowPrivateNetwork: true }, lookup)).toBeUndefined();
  });

  it('refuses other schemes, nonsense and unknown hosts with a reason', async () => {
    expect(await checkUrl('file:///etc/passwd', closed, lookup)).toBe('only http and https addresses may be opened, not file:');
    expect(await checkUrl('javascript:alert(1)', closed, lookup)).toBe('only http and https addresses may be opened, not javascript:');
    expect(await checkUrl('not a url', closed, lookup)).toMatch(/is not a web address/);
    expect(await checkUrl('https://nowhere.test/', closed, lookup)).toBe('nowhere.test could not be found (no such host)');
  });

  it('applies blockUrls always and allowUrls when set: hosts, subdomains, prefixes', async () => {
    const url = (text: string) => new URL(text);
    expect(matchesUrlPattern(url('https://example.com/a'), 'example.com')).toBe(true);
    expect(matchesUrlPattern(url('https://www.example.com/a'), 'example.com')).toBe(false);
    expect(matchesUrlPattern(url('https://www.example.com/a'), '*.example.com')).toBe(true);
    expect(matchesUrlPattern(url('https://example.com/a'), '*.example.com')).toBe(false);
    expect(matchesUrlPattern(url('https://example.com/docs/x'), 'https://example.com/docs/')).toBe(true);
    expect(matchesUrlPattern(url('https://example.com/blog'), 'https://example.com/docs/')).toBe(false);
    const policy = { ...closed, allowUrls: ['public.test'], blockUrls: ['https://public.test/admin'] };
    expect(await checkUrl('https://public.test/page', policy, lookup)).toBeUndefined();
    expect(await checkUrl('https://public.test/admin/users', policy, lookup)).toMatch(/blocked by this gateway's settings/);
    expect(await checkUrl('https://six.test/', policy, lookup)).toMatch(/not among the sites this gateway allows/);
  });
});
