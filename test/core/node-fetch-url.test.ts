/**
 * The `url` module the bundle gives node-fetch (src/core/node-fetch-url.ts): what it parses is what
 * Node's deprecated `url.parse()` gives for the same address (the expected objects are its answers
 * on Node 20). node-fetch bundled with it: node-fetch-bundle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { format, parse } from '../../src/core/node-fetch-url.ts';

describe("node-fetch's url module in the bundle", () => {
  it('parses an absolute address as url.parse() does', () => {
    expect(parse('http://127.0.0.1:8080/bot123:ABC/getMe?x=1&y=2#frag')).toEqual({ protocol: 'http:', slashes: true, auth: null, host: '127.0.0.1:8080', port: '8080', hostname: '127.0.0.1', hash: '#frag', search: '?x=1&y=2', query: 'x=1&y=2', pathname: '/bot123:ABC/getMe', path: '/bot123:ABC/getMe?x=1&y=2', href: 'http://127.0.0.1:8080/bot123:ABC/getMe?x=1&y=2#frag' });
    expect(parse('https://user:p%40ss@api.example.com/v1/messages')).toEqual({ protocol: 'https:', slashes: true, auth: 'user:p@ss', host: 'api.example.com', port: null, hostname: 'api.example.com', hash: null, search: null, query: null, pathname: '/v1/messages', path: '/v1/messages', href: 'https://user:p%40ss@api.example.com/v1/messages' });
    expect(parse('http://[::1]:3000/x')).toMatchObject({ host: '[::1]:3000', port: '3000', hostname: '::1', path: '/x' });
    expect(parse('https://example.com')).toMatchObject({ host: 'example.com', pathname: '/', path: '/', href: 'https://example.com/' });
  });

  it('gives an address that is not absolute no protocol and no host, and formats a result back to its address', () => {
    expect(parse('foo/bar')).toEqual({ protocol: null, slashes: null, auth: null, host: null, port: null, hostname: null, hash: null, search: null, query: null, pathname: 'foo/bar', path: 'foo/bar', href: 'foo/bar' });
    expect(format(parse('http://127.0.0.1:8080/a?b=1'))).toBe('http://127.0.0.1:8080/a?b=1');
  });
});
