// The egress proxy's domains from settings and WebFetch(domain:…) rules, as in Claude Code (docs/security.md).
import type { PermissionRules } from '../../shared/policy/permission-rules';
import { webFetchRuleDomains } from '../../shared/policy/sandbox';

/** Allowed and denied domains for the proxy: the sandbox's own lists and the WebFetch domain rules, without repeats. */
export function egressDomains(options: {
  allowedDomains?: readonly string[];
  deniedDomains?: readonly string[];
  permissions?: PermissionRules;
}): {
  allowedDomains: string[];
  deniedDomains: string[];
} {
  return {
    allowedDomains: [
      ...new Set([...(options.allowedDomains ?? []), ...webFetchRuleDomains(options.permissions?.allow)]),
    ],
    deniedDomains: [...new Set([...(options.deniedDomains ?? []), ...webFetchRuleDomains(options.permissions?.deny)])],
  };
}
