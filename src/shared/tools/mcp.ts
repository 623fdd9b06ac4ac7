// MCP server specs (`.mcp.json` shape), `mcp__<server>__<tool>` names and tool filters (docs/tools.md, MCP).

/** One MCP server, as in `.mcp.json` or a definition's inline `mcpServers` entry. `${VAR}` is expanded by the worker. */
export type McpServerSpec =
  | { type: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { type: 'http'; url: string; headers?: Record<string, string> }
  | { type: 'sse'; url: string; headers?: Record<string, string> };

/** An entry of a definition's `mcpServers`: a configured server by name, or an inline one. */
export interface McpServerEntry {
  name: string;
  /** Absent: a reference to a server of `.mcp.json`. */
  spec?: McpServerSpec;
}

export const mcpToolPrefix = 'mcp__';

/** Longest tool name the Messages API accepts. */
export const maxToolNameChars = 64;

/** Server and tool names as they appear in tool names: anything but letters, digits, `_` and `-` becomes `_`. */
export function normalizeMcpName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `${mcpToolPrefix}${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(mcpToolPrefix);
}

/** The server a pattern or tool name refers to (`mcp__github__x` → `github`), or undefined for `mcp__*`. */
export function serverOfPattern(pattern: string): string | undefined {
  if (!isMcpToolName(pattern)) return undefined;
  const rest = pattern.slice(mcpToolPrefix.length);
  if (rest === '*' || rest === '') return undefined;
  const separator = rest.indexOf('__');
  return separator === -1 ? rest : rest.slice(0, separator);
}

/** True when a `tools`/`disallowedTools` entry covers the tool: `mcp__*`, `mcp__<server>`, `mcp__<server>__*` or the exact name. */
export function matchesMcpPattern(pattern: string, server: string, toolName: string): boolean {
  if (pattern === `${mcpToolPrefix}*`) return true;
  const serverPrefix = `${mcpToolPrefix}${normalizeMcpName(server)}`;
  return pattern === serverPrefix || pattern === `${serverPrefix}__*` || pattern === toolName;
}

/** The MCP part of an agent's tool filter: its `tools` allow-list ('all' when omitted or `*`) and `disallowedTools`. */
export interface McpToolFilter {
  allow: 'all' | string[];
  deny: string[];
}

/** The filter: the deny-list first, then the allow-list (docs/architecture.md, Spawning). */
export function mcpToolAllowed(filter: McpToolFilter, server: string, toolName: string): boolean {
  if (filter.deny.some((pattern) => matchesMcpPattern(pattern, server, toolName))) return false;
  return filter.allow === 'all' || filter.allow.some((pattern) => matchesMcpPattern(pattern, server, toolName));
}

/** Whether any tool of the server could pass the filter (else it is not worth starting). */
export function serverMayBeUsed(filter: McpToolFilter, server: string): boolean {
  const serverName = normalizeMcpName(server);
  const coversWholeServer = (pattern: string) =>
    pattern === `${mcpToolPrefix}*` ||
    pattern === `${mcpToolPrefix}${serverName}` ||
    pattern === `${mcpToolPrefix}${serverName}__*`;
  if (filter.deny.some(coversWholeServer)) return false;
  if (filter.allow === 'all') return true;
  return filter.allow.some((pattern) => pattern === `${mcpToolPrefix}*` || serverOfPattern(pattern) === serverName);
}

/** What a new agent needs to start its MCP servers (part of its workflow input). */
export interface AgentMcpInput {
  /** The servers to connect, by name. */
  servers: Record<string, McpServerSpec>;
  /** Servers that must be connected before the first turn; the agent fails when they are not within 30 s. */
  required: string[];
  filter: McpToolFilter;
}

/** The MCP fields of a definition that decide its servers. */
export interface McpDefinitionFields {
  tools?: string[];
  mcpTools?: string[];
  disallowedTools?: string[];
  mcpServers?: McpServerEntry[];
  requiredMcpServers?: string[];
}

/** The filter a definition sets. */
export function mcpFilterOf(definition: McpDefinitionFields): McpToolFilter {
  const allowAll = definition.tools === undefined || definition.tools.includes('*');
  return {
    allow: allowAll ? 'all' : [...(definition.mcpTools ?? [])],
    deny: (definition.disallowedTools ?? []).filter(isMcpToolName),
  };
}

/** Servers a new agent connects: configured plus inline (inline wins), those its filter could use or it requires. */
export function agentMcpInput(
  definition: McpDefinitionFields,
  configured: Readonly<Record<string, McpServerSpec>>,
): AgentMcpInput | undefined {
  const filter = mcpFilterOf(definition);
  const required = [...new Set(definition.requiredMcpServers ?? [])];
  const candidates: Record<string, McpServerSpec> = { ...configured };
  for (const entry of definition.mcpServers ?? []) if (entry.spec) candidates[entry.name] = entry.spec;
  const servers: Record<string, McpServerSpec> = {};
  for (const name of Object.keys(candidates).sort()) {
    if (required.includes(name) || serverMayBeUsed(filter, name)) servers[name] = candidates[name]!;
  }
  if (Object.keys(servers).length === 0 && required.length === 0) return undefined;
  return { servers, required, filter };
}
