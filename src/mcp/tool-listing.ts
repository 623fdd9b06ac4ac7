/** Reads a connected MCP server's tool list, page by page (used by the MCP activities and `subagents mcp`). */
import type { McpConnection } from './connection-pool';
import type { ListedMcpTool } from './descriptors';

/** Pages of tools/list read at most (a server that keeps sending cursors is cut off). */
const maxToolPages = 20;

/** Every tool a connected server lists. */
export async function listServerTools(connection: McpConnection, timeoutMs: number): Promise<ListedMcpTool[]> {
  const tools: ListedMcpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxToolPages; page++) {
    const result = await connection.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...(result.tools as ListedMcpTool[]));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
