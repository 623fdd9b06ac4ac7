/**
 * The egress proxy's lists from configuration (docs/security.md, "Network"), as Claude Code's
 * sandbox builds them: `sandbox.network.allowedDomains` / `deniedDomains` of settings, plus the
 * domains of `WebFetch(domain:…)` allow and deny permission rules (one decision for both ways out).
 */
import type { PermissionRules } from '../../shared/permission-rules';

/** The domain of a `WebFetch(domain:HOST)` rule, or undefined for any other rule. */
function ruleDomain(rule: { tool: string; content: string }): string | undefined {
  if (rule.tool !== 'WebFetch') return undefined;
  const domain = /^domain:(.+)$/.exec(rule.content)?.[1]?.trim();
  return domain === undefined || domain === '' ? undefined : domain;
}

/** Allowed and denied domains for the proxy: the sandbox's own lists and the WebFetch domain rules, without repeats. */
export function egressDomains(options: { allowedDomains?: readonly string[]; deniedDomains?: readonly string[]; permissions?: PermissionRules }): {
  allowedDomains: string[];
  deniedDomains: string[];
} {
  const fromRules = (rules: PermissionRules['allow']) => (rules ?? []).map(ruleDomain).filter((domain): domain is string => domain !== undefined);
  return {
    allowedDomains: [...new Set([...(options.allowedDomains ?? []), ...fromRules(options.permissions?.allow)])],
    deniedDomains: [...new Set([...(options.deniedDomains ?? []), ...fromRules(options.permissions?.deny)])],
  };
}
