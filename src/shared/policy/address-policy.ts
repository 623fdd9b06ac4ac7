// Which addresses WebFetch and the egress proxy reach: public ones; private ones only where configuration allows.
import ipaddr from 'ipaddr.js';

/** Private addresses WebFetch may reach anyway: all of them, or these hosts, addresses and CIDR ranges. */
export type PrivateAddressAllowance = 'all' | { hosts: string[]; ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] };

export const noPrivateAddresses: PrivateAddressAllowance = { hosts: [], ranges: [] };

/** Parses `all` or a comma-separated list of host names, IP addresses and CIDR ranges; throws on a bad entry. */
export function parsePrivateAllowance(value: string | undefined): PrivateAddressAllowance {
  const text = value?.trim() ?? '';
  if (text === '') return noPrivateAddresses;
  if (['all', '*', '1', 'true'].includes(text.toLowerCase())) return 'all';
  const allowance = { hosts: [] as string[], ranges: [] as [ipaddr.IPv4 | ipaddr.IPv6, number][] };
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    if (entry.includes('/')) {
      try {
        allowance.ranges.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE: "${entry}" is not a CIDR range (e.g. 10.0.0.0/8)`);
      }
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      allowance.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9.-]+$/i.test(entry)) {
      allowance.hosts.push(entry.toLowerCase());
    } else {
      throw new Error(
        `SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE: "${entry}" is neither a host name, an IP address nor a CIDR range`,
      );
    }
  }
  return allowance;
}

/** True for an ordinary public address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Whether WebFetch may connect to `address` (resolved from `host`). */
export function addressAllowed(host: string, address: string, allowance: PrivateAddressAllowance): boolean {
  if (isPublicAddress(address)) return true;
  if (allowance === 'all') return true;
  if (allowance.hosts.includes(host.toLowerCase())) return true;
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return allowance.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}
