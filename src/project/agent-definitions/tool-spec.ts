import { isCustomToolName } from '../../shared/tools/custom-tools';
import { isRuntimeTool, optInToolNames, runtimeToolNames } from '../../shared/policy/tool-classification';
import { ruleTools, type ToolRule } from '../../shared/policy/tool-rules';

/** `tools` after parsing: names the runtime has, plus what `Agent(...)` and `mcp__…` entries said. */
export interface AllowList {
  /** Runtime tool names in runtime order; undefined = every tool (`*`). */
  tools?: string[];
  allowedAgentTypes?: string[];
  mcpTools?: string[];
  /** Names no runtime or MCP tool has: kept for the worker's custom tools of these names (docs/tools.md, "Custom tools"). */
  customTools?: string[];
  /** Rules such as `Bash(git diff:*)`: the tool is in `tools`, and only calls matching one of its rules run. */
  rules?: ToolRule[];
  /** Entries that grant nothing here: names the runtime does not have, and narrowed entries such as `Bash(git:*)`. */
  dropped: string[];
  warnings: string[];
}

/** `disallowedTools` after parsing. */
export interface DenyList {
  disallowedTools?: string[];
  /** Names no runtime or MCP tool has: they deny the worker's custom tools of those names. */
  disallowedCustomTools?: string[];
  /** Rules such as `Bash(rm:*)`: the tool stays, calls matching one are refused. */
  rules?: ToolRule[];
  /** Names the runtime does not have (nothing to deny). */
  dropped: string[];
  warnings: string[];
}

interface ToolEntry {
  text: string;
  name: string;
  /** What was inside `Name(...)`, if anything. */
  rule?: string;
}

/** Splits at commas outside parentheses, so `Agent(Explore, Plan)` stays one entry. */
function splitTopLevel(value: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of value) {
    if (character === '(') depth += 1;
    if (character === ')') depth = Math.max(0, depth - 1);
    if (character === ',' && depth === 0) {
      entries.push(current);
      current = '';
    } else current += character;
  }
  entries.push(current);
  return entries.map((entry) => entry.trim()).filter((entry) => entry.length > 0);
}

function parseEntry(text: string): ToolEntry {
  const match = /^([^()\s]+)\s*\(([^()]*)\)$/.exec(text);
  const name = match?.[1] ?? text;
  // `Task` is the Agent tool's former name; older definition files still use it.
  const canonical = name === 'Task' ? 'Agent' : name;
  return match ? { text, name: canonical, rule: match[2]?.trim() ?? '' } : { text, name: canonical };
}

/** Entries of a `tools`/`disallowedTools` value: a comma-separated string or a YAML list. */
export function toolEntries(value: string | string[]): ToolEntry[] {
  const items = typeof value === 'string' ? [value] : value;
  return items.flatMap(splitTopLevel).map(parseEntry);
}

function isMcpTool(name: string): boolean {
  return name.startsWith('mcp__');
}

function unknownToolsWarning(field: string, names: string[]): string {
  const described = names.map((name) => {
    const suggestion = runtimeToolNames.find((tool) => tool.toLowerCase() === name.toLowerCase());
    return suggestion ? `${name} (did you mean ${suggestion}?)` : name;
  });
  const verb = names.length === 1 ? 'is not a tool' : 'are not tools';
  return (
    `${field}: ${described.join(', ')} ${verb} of this runtime (it has ${runtimeToolNames.join(', ')}); ` +
    'dropped unless the worker defines a custom tool of that name (docs/tools.md, "Custom tools")'
  );
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Parses `tools` (`*`, `Agent(a,b)`); unknown names and other narrowed entries are dropped with a warning. */
export function parseAllowList(value: string | string[]): AllowList {
  const names = new Set<string>();
  const agentTypes: string[] = [];
  const mcpTools: string[] = [];
  const unknown: string[] = [];
  const narrowed: string[] = [];
  const rules: ToolRule[] = [];
  const whole = new Set<string>();
  const warnings: string[] = [];
  let everyTool = false;
  let anyAgentType = false;
  for (const entry of toolEntries(value)) {
    if (entry.text === '*') everyTool = true;
    else if (isMcpTool(entry.name)) mcpTools.push(entry.text);
    else if (entry.name === 'Agent') {
      names.add('Agent');
      const types = entry.rule === undefined ? [] : splitTopLevel(entry.rule);
      if (types.length === 0) anyAgentType = true;
      agentTypes.push(...types);
    } else if (
      isRuntimeTool(entry.name) &&
      entry.rule !== undefined &&
      ruleTools.includes(entry.name) &&
      entry.rule !== '' &&
      entry.rule !== '*'
    ) {
      names.add(entry.name);
      rules.push({ tool: entry.name, content: entry.rule });
    } else if (isRuntimeTool(entry.name) && entry.rule !== undefined && (entry.rule === '' || entry.rule === '*')) {
      // `Bash(*)` is Claude Code's spelling of the whole tool.
      names.add(entry.name);
      whole.add(entry.name);
    } else if (isRuntimeTool(entry.name) && entry.rule !== undefined) {
      // Granting the whole tool would exceed what the author allowed, so the narrowed entry grants nothing.
      narrowed.push(entry.text);
      warnings.push(
        `tools: rules in parentheses are not supported for ${entry.name}, so ${entry.text} is dropped; list ${entry.name} to allow the whole tool`,
      );
    } else if (isRuntimeTool(entry.name)) {
      names.add(entry.name);
      whole.add(entry.name);
    } else unknown.push(entry.text);
  }
  // A tool also listed whole is not narrowed by its rules.
  const narrowing = rules.filter((rule) => !whole.has(rule.tool));
  if (unknown.length > 0) warnings.unshift(unknownToolsWarning('tools', unique(unknown)));
  const customTools = unique(unknown.filter(isCustomToolName));
  return {
    ...(everyTool
      ? // `*` leaves out the opt-in tools; `*, Rewind` is every tool and Rewind.
        optInToolNames.some((name) => names.has(name))
        ? { tools: runtimeToolNames.filter((name) => !optInToolNames.includes(name) || names.has(name)) }
        : {}
      : { tools: runtimeToolNames.filter((name) => names.has(name)) }),
    ...(agentTypes.length > 0 && !anyAgentType ? { allowedAgentTypes: unique(agentTypes) } : {}),
    ...(mcpTools.length > 0 ? { mcpTools: unique(mcpTools) } : {}),
    ...(customTools.length > 0 ? { customTools } : {}),
    ...(narrowing.length > 0 ? { rules: narrowing } : {}),
    dropped: unique([...unknown, ...narrowed]),
    warnings,
  };
}

/** Parses `disallowedTools`: `Bash(rm:*)` refuses matching calls, other narrowed entries deny the whole tool. */
export function parseDenyList(value: string | string[]): DenyList {
  const names = new Set<string>();
  const mcpTools: string[] = [];
  const unknown: string[] = [];
  const rules: ToolRule[] = [];
  const warnings: string[] = [];
  let everyTool = false;
  for (const entry of toolEntries(value)) {
    if (entry.text === '*') everyTool = true;
    else if (isMcpTool(entry.name)) mcpTools.push(entry.text);
    else if (
      isRuntimeTool(entry.name) &&
      entry.rule !== undefined &&
      entry.rule !== '' &&
      entry.rule !== '*' &&
      ruleTools.includes(entry.name)
    ) {
      rules.push({ tool: entry.name, content: entry.rule });
    } else if (isRuntimeTool(entry.name)) {
      names.add(entry.name);
      if (entry.rule !== undefined) {
        if (entry.rule !== '' && entry.rule !== '*')
          warnings.push(
            `disallowedTools: rules in parentheses are not supported for ${entry.name}, so ${entry.text} denies the whole ${entry.name} tool`,
          );
      }
    } else unknown.push(entry.text);
  }
  if (unknown.length > 0) warnings.unshift(unknownToolsWarning('disallowedTools', unique(unknown)));
  const denied = [...runtimeToolNames.filter((name) => everyTool || names.has(name)), ...unique(mcpTools)];
  // Unknown names deny the worker's custom tools of those names.
  const customTools = unique(unknown.filter(isCustomToolName));
  const ruled = rules.filter((rule) => !denied.includes(rule.tool));
  return {
    ...(denied.length > 0 ? { disallowedTools: denied } : {}),
    ...(customTools.length > 0 ? { disallowedCustomTools: customTools } : {}),
    ...(ruled.length > 0 ? { rules: ruled } : {}),
    dropped: unique(unknown),
    warnings,
  };
}

/** The runtime tools a definition leaves itself: its allow-list (or all) minus its deny-list. */
export function remainingTools(
  tools: readonly string[] | undefined,
  disallowedTools: readonly string[] | undefined,
): string[] {
  const denied = new Set(disallowedTools ?? []);
  return (tools ?? runtimeToolNames.filter((name) => !optInToolNames.includes(name))).filter(
    (name) => !denied.has(name),
  );
}
