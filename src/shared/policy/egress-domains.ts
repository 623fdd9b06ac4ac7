// One host matcher for the sandbox proxy and `WebFetch(domain:…)` rules (docs/security.md, "Network").

/** Lower case, without a trailing dot or IPv6 brackets: the form hosts and patterns are compared in. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/** True for an IPv4 dotted quad or an IPv6 literal: such hosts match only an entry that names them exactly. */
export function isIpLiteral(host: string): boolean {
  const normalized = normalizeHost(host);
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(normalized) || normalized.includes(':');
}

/** Whether `host` matches one allow or deny entry: exactly, or `*.domain` for any subdomain of `domain`. */
export function domainMatches(pattern: string, host: string): boolean {
  const entry = normalizeHost(pattern);
  const target = normalizeHost(host);
  if (entry === '' || target === '') return false;
  if (!entry.startsWith('*.')) return entry === target;
  const suffix = entry.slice(1);
  // A wildcard never matches an address: `*.0.1` must not reach 10.0.0.1.
  return suffix.length > 1 && !isIpLiteral(target) && target.endsWith(suffix) && target.length > suffix.length;
}

/** What the egress policy says about one host, before any address is looked up. */
export type EgressVerdict =
  | { type: 'allowed'; entry: string; listedExactly: boolean }
  | { type: 'refused'; reason: 'denied'; entry: string }
  | { type: 'refused'; reason: 'not-listed' };

/** Denied entries beat allowed ones; `listedExactly` says the host was named itself (so it may be private or loopback). */
export function decideEgress(
  host: string,
  allowedDomains: readonly string[],
  deniedDomains: readonly string[] = [],
): EgressVerdict {
  const denied = deniedDomains.find((entry) => domainMatches(entry, host));
  if (denied !== undefined) return { type: 'refused', reason: 'denied', entry: denied };
  const exact = allowedDomains.find((entry) => !normalizeHost(entry).startsWith('*.') && domainMatches(entry, host));
  if (exact !== undefined) return { type: 'allowed', entry: exact, listedExactly: true };
  const wildcard = allowedDomains.find((entry) => domainMatches(entry, host));
  if (wildcard !== undefined) return { type: 'allowed', entry: wildcard, listedExactly: false };
  return { type: 'refused', reason: 'not-listed' };
}

/** The domain a `WebFetch(domain:HOST)` rule names, from the text inside its parentheses; undefined for any other content. */
export function webFetchRuleDomain(content: string): string | undefined {
  const domain = /^domain:(.+)$/.exec(content)?.[1]?.trim();
  return domain === '' ? undefined : domain;
}

/** The host of an http(s) URL as egress rules see it, or undefined when the text is not such a URL. */
export function urlHost(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url.trim());
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    const host = normalizeHost(parsed.hostname);
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}
