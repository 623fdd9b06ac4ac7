import { describe, expect, it } from 'vitest';
import { decideEgress, domainMatches, isIpLiteral, urlHost } from '../../src/shared/policy/egress-domains';
import { expectResults, expectYesNo } from '../helpers/unit-cases';

describe('egress domain matching', () => {
  it('matches a host exactly, case-insensitive, without its trailing dot', () => {
    expectYesNo(domainMatches, {
      yes: [
        ['example.com', 'example.com'],
        ['Example.COM', 'example.com.'],
      ],
      no: [
        ['example.com', 'www.example.com'],
        ['example.com', 'badexample.com'],
        ['example.com', 'example.com.evil.net'],
      ],
    });
  });

  it('matches `*.domain` against subdomains, never the apex (as Claude Code)', () => {
    expectYesNo(domainMatches, {
      yes: [
        ['*.example.com', 'api.example.com'],
        ['*.example.com', 'a.b.EXAMPLE.com.'],
      ],
      no: [
        ['*.example.com', 'example.com'],
        ['*.example.com', 'badexample.com'],
        ['*.com', 'localhost'],
        ['*', 'example.com'],
        ['*.', 'example.com'],
        ['', 'example.com'],
      ],
    });
  });

  it('lets an IP address match only an entry naming it exactly', () => {
    expectYesNo(isIpLiteral, { yes: [['10.0.0.1'], ['[::1]']], no: [['example.com']] });
    expectYesNo(domainMatches, {
      yes: [
        ['127.0.0.1', '127.0.0.1'],
        ['[::1]', '::1'],
      ],
      no: [
        ['*.0.0.1', '10.0.0.1'],
        ['*.1', '127.0.0.1'],
      ],
    });
  });

  it('refuses denied hosts before allowed ones and says which entry decided', () => {
    expect(decideEgress('api.github.com', ['*.github.com'], ['api.github.com'])).toEqual({
      type: 'refused',
      reason: 'denied',
      entry: 'api.github.com',
    });
    expect(decideEgress('api.github.com', ['*.github.com', 'api.github.com'])).toEqual({
      type: 'allowed',
      entry: 'api.github.com',
      listedExactly: true,
    });
    expect(decideEgress('raw.github.com', ['*.github.com'])).toEqual({
      type: 'allowed',
      entry: '*.github.com',
      listedExactly: false,
    });
    expect(decideEgress('localhost', ['*.com'])).toEqual({ type: 'refused', reason: 'not-listed' });
    expect(decideEgress('anything', [])).toEqual({ type: 'refused', reason: 'not-listed' });
  });

  it('reads the host of an http(s) URL as the fetch will', () => {
    expectResults(urlHost, [
      [['https://Docs.Example.com./a?b'], 'docs.example.com'],
      [['http://user@example.com:8080/'], 'example.com'],
      [['http://[::1]:3000/'], '::1'],
      // WHATWG parsing: what `new URL` (and so WebFetch) connects to, not what a regex would see first.
      [['http://allowed.com\\@evil.com/'], 'allowed.com'],
      [['http://0x7f.1/'], '127.0.0.1'],
      [['ftp://example.com/'], undefined],
      [['not a url'], undefined],
      [[42], undefined],
    ]);
  });
});
