// Settings files' allow/ask/deny rules; deny beats ask beats allow (docs/configuration.md, "Permission rules").
import type { BashReading } from './command-analysis';
import {
  allowedByRules,
  callMatchesRule,
  parseToolRule,
  rulesFor,
  ruleToolOf,
  ruleTools,
  type RuleContext,
  type ToolRule,
} from './tool-rules';

/** One rule of a settings file. */
export interface PermissionRule extends ToolRule {
  /** The rule as written. */
  text: string;
  /** The file that holds it. */
  file: string;
}

/** The effective rules of a tree, from every settings file. */
export interface PermissionRules {
  allow?: PermissionRule[];
  ask?: PermissionRule[];
  deny?: PermissionRule[];
}

export const permissionRuleKinds = ['deny', 'ask', 'allow'] as const;

/** Reads a rule: `Tool`, `Tool(content)`, or an MCP name; or says why it cannot be used. */
export function parsePermissionRule(text: string): { tool: string; content: string } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { problem: 'an empty rule' };
  const withContent = parseToolRule(trimmed);
  if (withContent) {
    if (withContent.content === '' || withContent.content === '*') return { tool: withContent.tool, content: '' };
    if (!ruleTools.includes(withContent.tool) && withContent.tool !== 'Agent') {
      return {
        problem: `rules with content are understood for ${[...ruleTools, 'Agent'].join(', ')}; "${withContent.tool}(...)" never matches`,
      };
    }
    return withContent;
  }
  if (!/^[A-Za-z0-9_*:-]+$/.test(trimmed)) return { problem: 'not a tool name or Tool(content)' };
  return { tool: trimmed, content: '' };
}

/** Whether a rule without content names the tool: exactly, or an MCP server (`mcp__server`, `mcp__server__*`). */
function namesTool(rule: string, tool: string): boolean {
  if (rule === tool) return true;
  if (!rule.startsWith('mcp__') || !tool.startsWith('mcp__')) return false;
  const server = rule.endsWith('__*') ? rule.slice(0, -3) : rule.split('__').length === 2 ? rule : undefined;
  return server !== undefined && tool.startsWith(`${server}__`);
}

function matches(
  rule: PermissionRule,
  tool: string,
  input: Readonly<Record<string, unknown>>,
  context: RuleContext,
  mode: 'allow' | 'deny',
  bash?: BashReading,
): boolean {
  if (rule.content === '') return namesTool(rule.tool, tool);
  if (rule.tool === 'Agent')
    return (
      tool === 'Agent' &&
      rule.content === (typeof input.subagent_type === 'string' ? input.subagent_type : 'general-purpose')
    );
  return rule.tool === ruleToolOf(tool) && callMatchesRule(rule, tool, input, context, mode, bash);
}

/** A settings rule's decision on one call: the first deny, else the first ask, else an allow; undefined when none speaks. */
export type RuleDecision = { type: 'deny' | 'ask' | 'allow'; rule: PermissionRule };

/** A Bash call is decided as `bash` reads it (src/shared/policy/command-analysis.ts); without a reading no allow rule matches it. */
export function decideByRules(
  rules: PermissionRules | undefined,
  tool: string,
  input: Readonly<Record<string, unknown>>,
  context: RuleContext,
  bash?: BashReading,
): RuleDecision | undefined {
  if (!rules) return undefined;
  const deny = rules.deny?.find((rule) => matches(rule, tool, input, context, 'deny', bash));
  if (deny) return { type: 'deny', rule: deny };
  // An ask rule asks when any part of a Bash line matches it, as a deny rule would refuse.
  const ask = rules.ask?.find((rule) => matches(rule, tool, input, context, 'deny', bash));
  if (ask) return { type: 'ask', rule: ask };
  const allow = rules.allow ?? [];
  const bare = allow.find((rule) => rule.content === '' && namesTool(rule.tool, tool));
  if (bare) return { type: 'allow', rule: bare };
  const withContent = rulesFor(allow, tool).filter((rule) => rule.content !== '');
  if (withContent.length === 0) return undefined;
  // A Bash line is allowed only when every one of its commands matches some allow rule.
  if (tool !== 'Agent' && !allowedByRules(withContent, tool, input, context, bash)) return undefined;
  if (tool === 'Agent') {
    const rule = withContent.find((candidate) => matches(candidate, tool, input, context, 'allow'));
    return rule ? { type: 'allow', rule } : undefined;
  }
  return {
    type: 'allow',
    rule: withContent.find((rule) => matches(rule, tool, input, context, 'deny', bash)) ?? withContent[0]!,
  };
}

/** `deny: Bash(rm:*) (.claude/settings.json)` lines, for listings. */
export function describePermissionRules(rules: PermissionRules | undefined): string[] {
  return permissionRuleKinds.flatMap((kind) =>
    (rules?.[kind] ?? []).map((rule) => `${kind}: ${rule.text} (${rule.file})`),
  );
}
