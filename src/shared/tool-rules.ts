/**
 * Permission rules on tool calls, in Claude Code's syntax (docs/agent-definitions.md, tool rules):
 * `Bash(git diff:*)` (prefix), `Bash(npm run *)` (wildcard), `Bash(git status)` (exact);
 * `Read(...)` / `Edit(...)` with gitignore-style paths (`//abs`, `~/home`, `/project-root`, `relative`);
 * `WebFetch(domain:example.com)`. Pure and deterministic: workflow code calls it before a tool runs.
 * Path matching is `ignore`'s (gitignore semantics); tokenizing shell lines is shell-quote's.
 */
import ignore from 'ignore';
import { parse, type ParseEntry } from 'shell-quote';

/** One rule: the tool and what was inside its parentheses. */
export interface ToolRule {
  tool: string;
  content: string;
  /** Where a `/path` rule is anchored (the project root of the file that holds it), resolved when loaded. */
  root?: string;
}

/** An agent's rules: `allow` narrows a tool to matching calls, `deny` refuses matching calls. */
export interface ToolRules {
  allow?: ToolRule[];
  deny?: ToolRule[];
}

/** Where a call's paths resolve. */
export interface RuleContext {
  cwd: string;
  homeDir?: string;
}

/** The tools whose rules are about paths, and which rule tool covers them (Edit rules cover Write too). */
const pathRuleTools: Readonly<Record<string, string>> = { Read: 'Read', Glob: 'Read', Grep: 'Read', Edit: 'Edit', Write: 'Edit' };

/** The tools a rule can narrow here. */
export const ruleTools: readonly string[] = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'WebFetch'];

/** Reads `Name(content)`; undefined when the text has no parentheses. */
export function parseToolRule(text: string): ToolRule | undefined {
  const match = /^([^()\s]+)\s*\((.*)\)$/s.exec(text.trim());
  if (!match) return undefined;
  return { tool: match[1]!, content: match[2]!.trim() };
}

/** `a/./b/../c` → `a/c`, for absolute posix paths (no filesystem: workflow code). */
function normalizeAbsolute(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function resolvePath(cwd: string, path: string, homeDir?: string): string {
  if (path.startsWith('~/') && homeDir) return normalizeAbsolute(`${homeDir}/${path.slice(2)}`);
  return normalizeAbsolute(path.startsWith('/') ? path : `${cwd}/${path}`);
}

/** `path` relative to `root`, or undefined when it is outside (a rule anchored there cannot match it). */
function relativeTo(root: string, path: string): string | undefined {
  const base = normalizeAbsolute(root);
  if (base === '/') return path.slice(1);
  if (path === base) return '';
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : undefined;
}

/** Whether an absolute path matches a gitignore-style rule. */
export function pathMatchesRule(rule: ToolRule, path: string, context: RuleContext): boolean {
  let root: string;
  let pattern: string;
  if (rule.content.startsWith('//')) {
    root = '/';
    pattern = rule.content.slice(1);
  } else if (rule.content.startsWith('~/')) {
    if (!context.homeDir) return false;
    root = context.homeDir;
    pattern = `/${rule.content.slice(2)}`;
  } else if (rule.content.startsWith('/')) {
    root = rule.root ?? context.cwd;
    pattern = rule.content;
  } else {
    root = context.cwd;
    pattern = rule.content.startsWith('./') ? `/${rule.content.slice(2)}` : rule.content;
  }
  const relative = relativeTo(root, path);
  if (relative === undefined || relative === '') return false;
  return ignore().add(pattern).ignores(relative);
}

/** A wildcard rule: `*` is any text (`\*` a star); a single trailing ` *` also matches the bare command. */
function wildcardMatches(pattern: string, command: string): boolean {
  let expression = '';
  let stars = 0;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index]!;
    if (character === '\\' && (pattern[index + 1] === '*' || pattern[index + 1] === '\\')) {
      expression += `\\${pattern[index + 1]}`;
      index += 1;
    } else if (character === '*') {
      expression += '.*';
      stars += 1;
    } else expression += character.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&');
  }
  if (stars === 1 && expression.endsWith(' .*')) expression = `${expression.slice(0, -3)}( .*)?`;
  return new RegExp(`^${expression}$`, 's').test(command);
}

/** Whether one simple command matches a Bash rule: `prefix:*`, a wildcard, or the exact command. */
export function commandMatchesRule(content: string, command: string): boolean {
  const legacyPrefix = /^(.+):\*$/s.exec(content)?.[1];
  if (legacyPrefix !== undefined) return command === legacyPrefix || command.startsWith(`${legacyPrefix} `);
  if (/(^|[^\\])(\\\\)*\*/.test(content)) return wildcardMatches(content, command);
  return command === content.replace(/\\([*\\])/g, '$1');
}

/** The simple commands of a line (joined at `&&`, `||`, `;`, `|`; redirections dropped), or why it cannot be split. */
export function simpleCommands(line: string): { commands: string[] } | { problem: string } {
  if (/[`\n\r\0]/.test(line) || line.includes('$(') || line.includes('<(') || line.includes('>(')) {
    return { problem: 'command substitution and multi-line commands cannot be matched against rules' };
  }
  let entries: ParseEntry[];
  try {
    entries = parse(line, (name) => `$${name}`);
  } catch (error) {
    return { problem: `the command could not be parsed (${(error as Error).message})` };
  }
  const commands: string[][] = [[]];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    if (typeof entry === 'string') commands[commands.length - 1]!.push(entry);
    else if ('comment' in entry) continue;
    else if ('op' in entry && entry.op === 'glob') commands[commands.length - 1]!.push((entry as { pattern: string }).pattern);
    else if ('op' in entry && ['&&', '||', ';', '|', '|&'].includes(entry.op)) commands.push([]);
    else if ('op' in entry && ['>', '>>', '>&', '<', '<&', '&>'].includes(entry.op)) index += 1;
    else return { problem: `the shell syntax ${'op' in entry ? entry.op : '?'} cannot be matched against rules` };
  }
  return { commands: commands.filter((words) => words.length > 0).map((words) => words.join(' ')) };
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url.trim());
  return match?.[1]?.toLowerCase();
}

/** The absolute paths a call touches, for path rules (Glob and Grep without `path` search the cwd). */
function callPaths(tool: string, input: Readonly<Record<string, unknown>>, context: RuleContext): string[] | undefined {
  const raw = tool === 'Glob' || tool === 'Grep' ? (input.path ?? context.cwd) : input.file_path;
  if (typeof raw !== 'string' || raw === '') return undefined;
  return [resolvePath(context.cwd, raw, context.homeDir)];
}

/** Whether a call matches one rule of its tool. */
export function callMatchesRule(rule: ToolRule, tool: string, input: Readonly<Record<string, unknown>>, context: RuleContext, mode: 'allow' | 'deny'): boolean {
  if (tool === 'Bash') {
    const line = typeof input.command === 'string' ? input.command : '';
    const split = simpleCommands(line);
    // A line that cannot be read is never allowed by a rule, and a deny rule is checked against its text too.
    if ('problem' in split) return mode === 'deny' && commandMatchesRule(rule.content, line.trim());
    const matches = split.commands.map((command) => commandMatchesRule(rule.content, command));
    return mode === 'allow' ? matches.length > 0 && matches.every(Boolean) : matches.some(Boolean) || commandMatchesRule(rule.content, line.trim());
  }
  if (tool === 'WebFetch') {
    const domain = /^domain:(.+)$/.exec(rule.content)?.[1]?.trim().toLowerCase();
    const host = hostOf(input.url);
    if (!domain || !host) return false;
    return domain.startsWith('*.') ? host.endsWith(domain.slice(1)) : host === domain;
  }
  const paths = callPaths(tool, input, context);
  return paths !== undefined && paths.every((path) => pathMatchesRule(rule, path, context));
}

/** The tool whose rules speak about `tool`: Read rules cover Glob and Grep, Edit rules cover Write. */
export function ruleToolOf(tool: string): string {
  return pathRuleTools[tool] ?? tool;
}

/** The rules that speak about `tool`. */
export function rulesFor<Rule extends ToolRule>(rules: readonly Rule[] | undefined, tool: string): Rule[] {
  const ruleTool = ruleToolOf(tool);
  return (rules ?? []).filter((rule) => rule.tool === ruleTool);
}

/** A Bash line allowed by rules must match every one of its simple commands; a deny rule refuses on any. */
export function allowedByRules(rules: ToolRule[], tool: string, input: Readonly<Record<string, unknown>>, context: RuleContext): boolean {
  if (tool !== 'Bash') return rules.some((rule) => callMatchesRule(rule, tool, input, context, 'allow'));
  const split = simpleCommands(typeof input.command === 'string' ? input.command : '');
  if ('problem' in split || split.commands.length === 0) return false;
  return split.commands.every((command) => rules.some((rule) => commandMatchesRule(rule.content, command)));
}

/** The verdict of an agent's rules on one call. */
export type RuleVerdict = { type: 'allowed' } | { type: 'refused'; reason: string };

/** Checks a call against an agent's rules: deny rules first, then allow rules of its tool (if any narrow it). */
export function checkToolRules(rules: ToolRules | undefined, tool: string, input: Readonly<Record<string, unknown>>, context: RuleContext): RuleVerdict {
  const denied = rulesFor(rules?.deny, tool).find((rule) => callMatchesRule(rule, tool, input, context, 'deny'));
  if (denied) return { type: 'refused', reason: `it matches the rule ${denied.tool}(${denied.content}) in disallowedTools` };
  const allow = rulesFor(rules?.allow, tool);
  if (allow.length === 0 || allowedByRules(allow, tool, input, context)) return { type: 'allowed' };
  const listed = allow.map((rule) => `${rule.tool}(${rule.content})`).join(', ');
  return { type: 'refused', reason: `this agent may use ${tool} only as its rules allow (${listed}), and this call matches none of them` };
}
