/** MCP tools as the agent's extra-tool descriptors: naming, the tool filter, and classification from the server's hints. */
import type { ToolDescriptor } from '../shared/tools/extra-tools';
import { maxToolNameChars, mcpToolAllowed, mcpToolName, type McpToolFilter } from '../shared/tools/mcp';

/** What a server said about one tool (tools/list). */
export interface ListedMcpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean };
}

/** Longest tool description sent to the model (servers sometimes send whole manuals). */
export const maxMcpDescriptionChars = 2048;

/** The descriptors of one server's tools that pass the agent's filter, in the server's order; and what was left out. */
export function describeMcpTools(
  server: string,
  tools: readonly ListedMcpTool[],
  filter: McpToolFilter,
): { descriptors: ToolDescriptor[]; skipped: string[] } {
  const descriptors: ToolDescriptor[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    const name = mcpToolName(server, tool.name);
    if (!mcpToolAllowed(filter, server, name)) continue;
    if (name.length > maxToolNameChars) {
      skipped.push(`${name} (longer than ${maxToolNameChars} characters, which the API does not accept)`);
      continue;
    }
    if (seen.has(name)) {
      skipped.push(`${name} (two tools of the server have this name once normalized)`);
      continue;
    }
    seen.add(name);
    const readOnly = tool.annotations?.readOnlyHint === true;
    const description = (tool.description ?? '').trim() || `Tool ${tool.name} of the MCP server ${server}.`;
    descriptors.push({
      definition: {
        name,
        description:
          description.length > maxMcpDescriptionChars
            ? `${description.slice(0, maxMcpDescriptionChars - 3)}...`
            : description,
        input_schema: tool.inputSchema.type === 'object' ? tool.inputSchema : { ...tool.inputSchema, type: 'object' },
      },
      classification: {
        readOnly,
        needsApproval: !readOnly,
        retrySafe: readOnly || tool.annotations?.idempotentHint === true,
      },
      runner: { kind: 'mcp', server, tool: tool.name },
    });
  }
  return { descriptors, skipped };
}
