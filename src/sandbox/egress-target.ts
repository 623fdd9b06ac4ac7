// The egress proxy's decision on one target: its domain, then every address it resolves to (docs/security.md).
import dns from 'node:dns';
import net from 'node:net';
import { decideEgress, isIpLiteral, normalizeHost } from '../shared/policy/egress-domains';
import { ErrorType, errorText } from '../shared/protocol/errors';
import { addressAllowed, noPrivateAddresses, type PrivateAddressAllowance } from '../shared/policy/address-policy';

/** Looks a host name up: every address it has (tests inject one that answers what they need). */
export type EgressResolver = (host: string) => Promise<string[]>;

/** The worker's resolver (getaddrinfo, as every other program on it). */
export const systemResolver: EgressResolver = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** The allow and deny lists and what private addresses may be reached. */
export interface EgressPolicy {
  allowedDomains: readonly string[];
  deniedDomains?: readonly string[];
  /** Private, loopback or link-local addresses reachable through any allowed host (default: only through hosts listed exactly). */
  allowPrivate?: PrivateAddressAllowance;
  resolve?: EgressResolver;
}

/** One proxied connection's fate, for logs and the Bash result. */
export interface EgressDecision {
  host: string;
  port: number;
  kind: 'connect' | 'http';
  allowed: boolean;
  /** Why it was refused (the 403 body), or the address it went to. */
  detail: string;
}

/** A target the proxy may connect to, or the status and one-line text it answers instead. */
export type TargetCheck =
  | { type: 'connect'; host: string; port: number; address: string }
  | { type: 'refuse'; host: string; port: number; status: number; text: string };

const hostName = /^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

/** `host:port` of a CONNECT (`[v6]:port` for IPv6), or why it is not one. */
export function parseAuthority(authority: string): { host: string; port: number } | { problem: string } {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+):(\d{1,5})$/i.exec(authority);
  if (!match) return { problem: `"${authority.slice(0, 100)}" is not host:port` };
  return checkedHostPort(match[1]!, Number(match[2]));
}

/** A host and port both well formed, or why not. */
export function checkedHostPort(rawHost: string, port: number): { host: string; port: number } | { problem: string } {
  const host = normalizeHost(rawHost);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { problem: `port ${port} is not between 1 and 65535` };
  if (host.length > 253 || !(net.isIP(host) !== 0 || hostName.test(host)))
    return { problem: `"${rawHost.slice(0, 100)}" is not a host name or IP address` };
  return { host, port };
}

function howToAllow(host: string): string {
  return `add it to sandbox.network.allowedDomains in settings, or allow it with the permission rule WebFetch(domain:${host}) (docs/security.md, "Network")`;
}

/** The refusal text a command inside the sandbox prints (curl shows the 403's body). */
export function refusalText(host: string, why: string): string {
  return errorText(ErrorType.EgressRefused, `${host}: ${why}.`);
}

/** Decides a target: its host against the lists, then every address it resolves to. */
export async function checkTarget(host: string, port: number, policy: EgressPolicy): Promise<TargetCheck> {
  const verdict = decideEgress(host, policy.allowedDomains, policy.deniedDomains);
  const refuse = (status: number, why: string): TargetCheck => ({
    type: 'refuse',
    host,
    port,
    status,
    text: refusalText(host, why),
  });
  if (verdict.type === 'refused') {
    if (verdict.reason === 'denied')
      return refuse(
        403,
        `the sandbox does not connect to it: it matches ${verdict.entry} in sandbox.network.deniedDomains`,
      );
    return refuse(403, `the sandbox does not connect to hosts it was not told about; to allow it, ${howToAllow(host)}`);
  }
  let addresses: string[];
  try {
    addresses = isIpLiteral(host) ? [host] : await (policy.resolve ?? systemResolver)(host);
  } catch (error) {
    return refuse(
      502,
      `the name could not be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  if (addresses.length === 0) return refuse(502, 'the name has no address');
  // A host named exactly may be private (a local test server, an intranet); a wildcard never reaches one.
  const allowance = verdict.listedExactly ? 'all' : (policy.allowPrivate ?? noPrivateAddresses);
  const blocked = addresses.find((address) => !addressAllowed(host, address, allowance));
  if (blocked !== undefined) {
    return refuse(
      403,
      `it resolves to ${blocked}, a private, loopback or link-local address, which the sandbox reaches only for hosts listed exactly; to allow it, ${howToAllow(host)}`,
    );
  }
  // The proxy connects to the address checked here, so DNS cannot point a checked name elsewhere later.
  return { type: 'connect', host, port, address: addresses[0]! };
}
