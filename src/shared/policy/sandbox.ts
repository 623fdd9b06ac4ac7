// The settings' `sandbox` key, carried in each tool call's context for the worker (docs/security.md, "The sandbox").
import { webFetchRuleDomain } from './egress-domains';

/** Claude Code's `sandbox` settings shape, merged over every settings file of a tree. */
export interface SandboxSettings {
  /** A sandboxed Bash call runs without an approval unless a rule asks or denies (Claude Code's `autoAllowBashIfSandboxed`, default true). */
  autoAllowBashIfSandboxed?: boolean;
  filesystem?: {
    /** Also writable, besides the agent's workspace and its private temporary directory. */
    allowWrite?: string[];
    /** Never writable, even inside the workspace. */
    denyWrite?: string[];
    /** Hidden from commands (`Read(...)` deny rules of the settings are added here). */
    denyRead?: string[];
    /** Also visible (read-only) to Bash, besides the system directories. */
    allowRead?: string[];
  };
  network?: {
    /** Hosts a command may reach through the filtering proxy (`example.com`, `*.example.com`). */
    allowedDomains?: string[];
    /** Hosts never reached, whatever allows them. */
    deniedDomains?: string[];
  };
}

/** How strictly a sandboxed process is held: a model's command, or a configured hook or MCP server. */
export type SandboxProfile = 'command' | 'service';

/** The domains of `WebFetch(domain:HOST)` rules, which open the same hosts to sandboxed commands (as in Claude Code). */
export function webFetchRuleDomains(rules: readonly { tool: string; content: string }[] | undefined): string[] {
  return (rules ?? []).flatMap((rule) => {
    const domain = rule.tool === 'WebFetch' ? webFetchRuleDomain(rule.content) : undefined;
    return domain ? [domain] : [];
  });
}

/** The tree's sandbox settings with what an agent's definition adds: its `WebFetch(domain:…)` tool rules' hosts. */
export function withDefinitionDomains(
  settings: SandboxSettings | undefined,
  definitionRules: readonly { tool: string; content: string }[] | undefined,
): SandboxSettings | undefined {
  const domains = webFetchRuleDomains(definitionRules);
  if (domains.length === 0) return settings;
  const allowedDomains = [...new Set([...(settings?.network?.allowedDomains ?? []), ...domains])];
  return { ...settings, network: { ...settings?.network, allowedDomains } };
}

/** `allowWrite: ~/.cache/pip` lines of what a tree's sandbox settings change, for listings (`subagents agents`). */
export function describeSandboxSettings(settings: SandboxSettings | undefined): string[] {
  if (!settings) return [];
  const lines: string[] = [];
  if (settings.autoAllowBashIfSandboxed !== undefined)
    lines.push(`autoAllowBashIfSandboxed: ${settings.autoAllowBashIfSandboxed}`);
  for (const [key, values] of Object.entries({ ...settings.filesystem, ...settings.network }))
    if (values?.length) lines.push(`${key}: ${values.join(', ')}`);
  return lines;
}
