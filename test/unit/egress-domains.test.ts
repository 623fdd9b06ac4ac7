import { describe, expect, it } from 'vitest';
import { decideEgress, domainMatches, isIpLiteral, urlHost } from '../../src/shared/policy/egress-domains';

describe('egress domain matching', () => {
  it('matches a host exactly, case-insensitive, without its trailing dot', () => {
    expect(domainMatches('example.com', 'example.com')).toBe(true);
    expect(domainMatches('Example.COM', 'example.com.')).toBe(true);
    expect(domainMatches('example.com', 'www.example.com')).toBe(false);
    expect(domainMatches('example.com', 'badexample.com')).toBe(false);
    expect(domainMatches('example.com', 'example.com.evil.net')).toBe(false);
  });

  it('matches `*.domain` against subdomains, never the apex (as Claude Code)', () => {
    expect(domainMatches('*.example.com', 'api.example.com')).toBe(true);
    expect(domainMatches('*.example.com', 'a.b.EXAMPLE.com.')).toBe(true);
    expect(domainMatches('*.example.com', 'example.com')).toBe(false);
    expect(domainMatches('*.example.com', 'badexample.com')).toBe(false);
    expect(domainMatches('*.com', 'localhost')).toBe(false);
    expect(domainMatches('*', 'example.com')).toBe(false);
    expect(domainMatches('*.', 'example.com')).toBe(false);
    expect(domainMatches('', 'example.com')).toBe(false);
  });

  it('lets an IP address match only an entry naming it exactly', () => {
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('example.com')).toBe(false);
    expect(domainMatches('*.0.0.1', '10.0.0.1')).toBe(false);
    expect(domainMatches('*.1', '127.0.0.1')).toBe(false);
    expect(domainMatches('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(domainMatches('[::1]', '::1')).toBe(true);
  });

  it('refuses denied hosts before allowed ones and says which entry decided', () => {
    expect(decideEgress('api.github.com', ['*.github.com'], ['api.github.com'])).toEqual({ type: 'refused', reason: 'denied', entry: 'api.github.com' });
    expect(decideEgress('api.github.com', ['*.github.com', 'api.github.com'])).toEqual({ type: 'allowed', entry: 'api.github.com', listedExactly: true });
    expect(decideEgress('raw.github.com', ['*.github.com'])).toEqual({ type: 'allowed', entry: '*.github.com', listedExactly: false });
    expect(decideEgress('localhost', ['*.com'])).toEqual({ type: 'refused', reason: 'not-listed' });
    expect(decideEgress('anything', [])).toEqual({ type: 'refused', reason: 'not-listed' });
  });

  it('reads the host of an http(s) URL as the fetch will', () => {
    expect(urlHost('https://Docs.Example.com./a?b')).toBe('docs.example.com');
    expect(urlHost('http://user@example.com:8080/')).toBe('example.com');
    expect(urlHost('http://[::1]:3000/')).toBe('::1');
    // WHATWG parsing: what `new URL` (and so WebFetch) connects to, not what a regex would see first.
    expect(urlHost('http://allowed.com\\@evil.com/')).toBe('allowed.com');
    expect(urlHost('http://0x7f.1/')).toBe('127.0.0.1');
    expect(urlHost('ftp://example.com/')).toBeUndefined();
    expect(urlHost('not a url')).toBeUndefined();
    expect(urlHost(42)).toBeUndefined();
  });
});
