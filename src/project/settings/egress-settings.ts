/**
 * The egress proxy's lists from configuration (docs/security.md, "Network"), as Claude Code's
 * sandbox builds them: `sandbox.network.allowedDomains` / `deniedDomains` of settings, plus the
 * domains of `WebFetch(domain:…)` allow and deny permission rules (one decision for both ways out).
 */
import type { PermissionRules } from '../../shared/policy/permission-rules';
import { webFetchRuleDomains } from '../../shared/policy/sandbox';

/** Allowed and denied domains for the proxy: the sandbox's own lists and the WebFetch domain rules, without repeats. */
export function egressDomains(options: { allowedDomains?: readonly string[]; deniedDomains?: readonly string[]; permissions?: PermissionRules }): {
  allowedDomains: string[];
  deniedDomains: string[];
} {
  return {
    allowedDomains: [...new Set([...(options.allowedDomains ?? []), ...webFetchRuleDomains(options.permissions?.allow)])],
    deniedDomains: [...new Set([...(options.deniedDomains ?? []), ...webFetchRuleDomains(options.permissions?.deny)])],
  };
}
