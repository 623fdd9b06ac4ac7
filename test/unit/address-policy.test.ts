import { describe, expect, it } from 'vitest';
import {
  addressAllowed,
  isPublicAddress,
  noPrivateAddresses,
  parsePrivateAllowance,
} from '../../src/shared/policy/address-policy';
import { checkUrl, isSameSiteRedirect } from '../../src/activities/web/safe-fetch';

describe('WebFetch address policy', () => {
  it('allows public unicast addresses only, by default', () => {
    for (const address of ['93.184.216.34', '2606:4700::1111']) expect(isPublicAddress(address)).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
      '224.0.0.1',
    ]) {
      expect(addressAllowed('host', address, noPrivateAddresses), address).toBe(false);
    }
  });

  it('lets configuration allow all private addresses, or named hosts, addresses and ranges', () => {
    expect(parsePrivateAllowance('all')).toBe('all');
    expect(addressAllowed('x', '10.0.0.1', parsePrivateAllowance('true'))).toBe(true);
    const allowance = parsePrivateAllowance('127.0.0.1, intranet.local, 10.0.0.0/8');
    expect(addressAllowed('localhost', '127.0.0.1', allowance)).toBe(true);
    expect(addressAllowed('localhost', '::ffff:127.0.0.1', allowance)).toBe(true);
    expect(addressAllowed('wiki', '10.9.9.9', allowance)).toBe(true);
    expect(addressAllowed('intranet.local', '192.168.0.5', allowance)).toBe(true);
    expect(addressAllowed('other', '192.168.0.5', allowance)).toBe(false);
    expect(addressAllowed('localhost', '::1', allowance)).toBe(false);
    expect(parsePrivateAllowance('  ')).toEqual(noPrivateAddresses);
    expect(() => parsePrivateAllowance('10.0.0.0/99')).toThrow(/not a CIDR range/);
    expect(() => parsePrivateAllowance('bad host!')).toThrow(/neither a host name/);
  });

  it('accepts only complete http(s) URLs without credentials', () => {
    expect(checkUrl('https://example.com/a?b=1', 2000).href).toBe('https://example.com/a?b=1');
    expect(() => checkUrl('ftp://example.com/file', 2000)).toThrow(
      /^UrlNotAllowed: only http and https URLs can be fetched, not ftp/,
    );
    expect(() => checkUrl('file:///etc/passwd', 2000)).toThrow(/not file/);
    expect(() => checkUrl('example.com', 2000)).toThrow(/not a valid absolute URL/);
    expect(() => checkUrl('https://user:pw@example.com/', 2000)).toThrow(/user name or password/);
    expect(() => checkUrl(`https://example.com/${'a'.repeat(3000)}`, 2000)).toThrow(/longer than 2000/);
  });

  it('follows redirects on the same host only (www. aside, and an upgrade to https)', () => {
    const from = new URL('http://example.com/a');
    expect(isSameSiteRedirect(from, new URL('http://www.example.com/b'))).toBe(true);
    expect(isSameSiteRedirect(from, new URL('https://example.com/b'))).toBe(true);
    expect(isSameSiteRedirect(from, new URL('http://example.com:8080/b'))).toBe(false);
    expect(isSameSiteRedirect(from, new URL('http://evil.com/b'))).toBe(false);
    expect(isSameSiteRedirect(new URL('https://example.com/'), new URL('http://example.com/'))).toBe(false);
  });
});
