/** A definition's `mcpServers` and `requiredMcpServers`, in Claude Code's format (docs/agent-definitions.md). */
import type { McpServerEntry } from '../../shared/tools/mcp';
import { parseServerSpec } from '../mcp-config';
import type { DefinitionFields } from './definition-schema';

/** `mcpServers` entries: `- name` refers to a configured server, `- name: {spec}` (or a `{name: spec}` mapping) defines one inline. */
export function parseMcpServers(value: NonNullable<DefinitionFields['mcpServers']>): {
  entries: McpServerEntry[];
  warnings: string[];
} {
  const entries: McpServerEntry[] = [];
  const warnings: string[] = [];
  const add = (name: string, spec?: unknown) => {
    const trimmed = name.trim();
    if (trimmed === '') return warnings.push('mcpServers: an empty server name is ignored');
    if (entries.some((entry) => entry.name === trimmed))
      return warnings.push(`mcpServers: server "${trimmed}" is listed twice; the first entry is used`);
    if (spec === undefined) return entries.push({ name: trimmed });
    const parsed = parseServerSpec(spec);
    if ('error' in parsed) return warnings.push(`mcpServers: server "${trimmed}" is ignored: ${parsed.error}`);
    return entries.push({ name: trimmed, spec: parsed.spec });
  };
  const items = Array.isArray(value) ? value : Object.entries(value).map(([name, spec]) => ({ [name]: spec }));
  for (const item of items) {
    if (typeof item === 'string') add(item);
    else for (const [name, spec] of Object.entries(item)) add(name, spec);
  }
  return { entries, warnings };
}

/** `requiredMcpServers`: one name or a list. */
export function parseRequiredMcpServers(value: NonNullable<DefinitionFields['requiredMcpServers']>): string[] {
  const names = (typeof value === 'string' ? value.split(',') : value)
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return [...new Set(names)];
}
