// Tool rules in Claude Code's syntax (`Bash(git diff:*)`, `Read(./x/**)`), checked before a call (docs/agent-definitions.md).
import ignore from 'ignore';
import { domainMatches, urlHost, webFetchRuleDomain } from './egress-domains';
import {
  globCanBeOption,
  literalWords,
  unanalysed,
  type BashReading,
  type CommandAnalysis,
  type SimpleCommand,
} from './command-analysis';

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
const pathRuleTools: Readonly<Record<string, string>> = {
  Read: 'Read',
  Glob: 'Read',
  Grep: 'Read',
  Edit: 'Edit',
  Write: 'Edit',
};

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

/** Options that make a command write a file (`git diff --output=x`, `sort -o x`): not matched by a prefix or wildcard rule. */
function writesFile(words: readonly string[]): boolean {
  const shortO = words[0] === 'sort' || words[0] === 'tree';
  return words.some(
    (word, index) =>
      index > 0 && (word === '--output' || word.startsWith('--output=') || (shortO && /^-[^-]*o/.test(word))),
  );
}

/** Whether a rule is an exact command (no prefix, no wildcard). */
function exactRule(content: string): boolean {
  return !/:\*$/s.test(content) && !/(^|[^\\])(\\\\)*\*/.test(content);
}

/** Whether an allow rule matches one simple command with certainty: literal words, no glob that could be an option, no writing option unless exact. */
function allowsCommand(content: string, command: SimpleCommand): boolean {
  const words = literalWords(command);
  if (!words || globCanBeOption(command)) return false;
  if (!commandMatchesRule(content, words.join(' '))) return false;
  return exactRule(content) || !writesFile(words);
}

/** What a deny or ask rule is checked against for one command: its literal words up to the first expansion, its text, and both with the program's base name (`/bin/rm` → `rm`). */
function denyCandidates(command: SimpleCommand): string[] {
  const firstUnknown = command.words.indexOf(null);
  const known = (firstUnknown < 0 ? command.words : command.words.slice(0, firstUnknown)) as string[];
  const candidates = [known.join(' '), command.text];
  const base = known[0]?.split('/').pop();
  if (base && base !== known[0]) candidates.push([base, ...known.slice(1)].join(' '));
  return candidates;
}

/** The analysis a Bash call is decided on; a call given none decides nothing. */
function analysisOf(bash: BashReading | undefined): CommandAnalysis {
  return bash?.type === 'parsed' ? bash.analysis : unanalysed('the command was not analysed');
}

/** Whether every command of an analysed line is allowed by some rule, with nothing unresolved. */
function analysisAllowed(contents: readonly string[], analysis: CommandAnalysis): boolean {
  if (analysis.unresolved.length > 0 || analysis.commands.length === 0) return false;
  return analysis.commands.every((command) => contents.some((content) => allowsCommand(content, command)));
}

/** Whether a Bash line matches one rule: allow needs every command, deny or ask any command anywhere (or the whole text). */
function bashMatchesRule(
  content: string,
  line: string,
  mode: 'allow' | 'deny',
  bash: BashReading | undefined,
): boolean {
  const analysis = analysisOf(bash);
  if (mode === 'allow') return analysisAllowed([content], analysis);
  if (commandMatchesRule(content, line.trim())) return true;
  return analysis.commands.some((command) =>
    denyCandidates(command).some((candidate) => commandMatchesRule(content, candidate)),
  );
}

/** The absolute paths a call touches, for path rules (Glob and Grep without `path` search the cwd). */
function callPaths(tool: string, input: Readonly<Record<string, unknown>>, context: RuleContext): string[] | undefined {
  const raw = tool === 'Glob' || tool === 'Grep' ? (input.path ?? context.cwd) : input.file_path;
  if (typeof raw !== 'string' || raw === '') return undefined;
  return [resolvePath(context.cwd, raw, context.homeDir)];
}

/** Whether a call matches one rule of its tool (a Bash call as `bash` reads it: without a reading nothing is allowed). */
export function callMatchesRule(
  rule: ToolRule,
  tool: string,
  input: Readonly<Record<string, unknown>>,
  context: RuleContext,
  mode: 'allow' | 'deny',
  bash?: BashReading,
): boolean {
  if (tool === 'Bash')
    return bashMatchesRule(rule.content, typeof input.command === 'string' ? input.command : '', mode, bash);
  if (tool === 'WebFetch') {
    // The host WebFetch will connect to (WHATWG parsing, as its fetch), matched as the egress proxy matches it.
    const domain = webFetchRuleDomain(rule.content);
    const host = urlHost(input.url);
    return domain !== undefined && host !== undefined && domainMatches(domain, host);
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
export function allowedByRules(
  rules: ToolRule[],
  tool: string,
  input: Readonly<Record<string, unknown>>,
  context: RuleContext,
  bash?: BashReading,
): boolean {
  if (tool !== 'Bash') return rules.some((rule) => callMatchesRule(rule, tool, input, context, 'allow'));
  return analysisAllowed(
    rules.map((rule) => rule.content),
    analysisOf(bash),
  );
}

/** The verdict of an agent's rules on one call. */
export type RuleVerdict = { type: 'allowed' } | { type: 'refused'; reason: string };

/** Checks a call against an agent's rules: deny rules first, then allow rules of its tool (if any narrow it). */
export function checkToolRules(
  rules: ToolRules | undefined,
  tool: string,
  input: Readonly<Record<string, unknown>>,
  context: RuleContext,
  bash?: BashReading,
): RuleVerdict {
  const denied = rulesFor(rules?.deny, tool).find((rule) => callMatchesRule(rule, tool, input, context, 'deny', bash));
  if (denied)
    return { type: 'refused', reason: `it matches the rule ${denied.tool}(${denied.content}) in disallowedTools` };
  const allow = rulesFor(rules?.allow, tool);
  if (allow.length === 0 || allowedByRules(allow, tool, input, context, bash)) return { type: 'allowed' };
  const listed = allow.map((rule) => `${rule.tool}(${rule.content})`).join(', ');
  return {
    type: 'refused',
    reason: `this agent may use ${tool} only as its rules allow (${listed}), and this call matches none of them`,
  };
}
