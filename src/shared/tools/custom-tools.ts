// Custom tools and tool task queues: data shared by client, spawner, workflow and worker (docs/tools.md).
import { isMcpToolName, type McpToolFilter } from './mcp';
import { isRuntimeTool, workspaceToolNames, type WorkspaceToolName } from '../policy/tool-classification';

/** Which of the worker's custom tools an agent gets: its `tools` allow-list ('all' when omitted or `*`) minus `disallowedTools`. */
export type CustomToolFilter = McpToolFilter;

/** Names the Messages API accepts for a tool. */
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** True for a name a custom tool may have: an API tool name that is neither a runtime tool nor an MCP tool. */
export function isCustomToolName(name: string): boolean {
  return toolNamePattern.test(name) && !isRuntimeTool(name) && !isMcpToolName(name);
}

/** The fields of a definition that decide its custom tools. */
export interface CustomToolDefinitionFields {
  tools?: string[];
  customTools?: string[];
  disallowedCustomTools?: string[];
}

/** The custom-tool filter a definition sets. */
export function customToolFilterOf(definition: CustomToolDefinitionFields): CustomToolFilter {
  const allowAll = definition.tools === undefined || definition.tools.includes('*');
  return {
    allow: allowAll ? 'all' : [...(definition.customTools ?? [])],
    deny: [...(definition.disallowedCustomTools ?? [])],
  };
}

/** The filter of an explicit tool list (the client's `tools` option): the custom names in it, nothing denied. */
export function customToolFilterOfList(tools: readonly string[]): CustomToolFilter {
  return { allow: tools.includes('*') ? 'all' : tools.filter(isCustomToolName), deny: [] };
}

export function customToolAllowed(filter: CustomToolFilter, name: string): boolean {
  if (filter.deny.includes(name)) return false;
  return filter.allow === 'all' || filter.allow.includes(name);
}

/** The built-in tools a worker may send to another task queue: the activities that touch the agent's files. */
export const routableToolNames: readonly WorkspaceToolName[] = workspaceToolNames;

/** Built-in tool → the task queue its activity runs on (absent: the agent's own queue). */
export type ToolTaskQueues = Partial<Record<WorkspaceToolName, string>>;

/** How long a call on a tool's own task queue waits for a worker of that queue before the agent is told. */
export const toolQueueWaitMs = 5 * 60_000;

const taskQueuePattern = /^[A-Za-z0-9][A-Za-z0-9._@:/-]{0,199}$/;

/** Checks a task queue name from configuration; throws a message that says what is allowed. */
export function parseTaskQueueName(value: unknown, source: string): string {
  if (typeof value !== 'string' || !taskQueuePattern.test(value)) {
    throw new Error(
      `Invalid task queue ${JSON.stringify(String(value).slice(0, 80))} in ${source}: use 1 to 200 letters, digits, '.', '_', '-', '@', ':' or '/', starting with a letter or digit.`,
    );
  }
  return value;
}

/** Checks tool names given for routing or for a tool worker: built-in workspace tools, or custom tool names when `custom` knows them. */
export function parseRoutableToolName(value: string, source: string): WorkspaceToolName {
  if (!(routableToolNames as readonly string[]).includes(value)) {
    throw new Error(
      `${source}: "${value}" cannot be routed to its own task queue; routable built-in tools are ${routableToolNames.join(', ')} (custom tools take a taskQueue in defineTool).`,
    );
  }
  return value as WorkspaceToolName;
}

/** Parses `SUBAGENTS_TOOL_TASK_QUEUES` (`Bash=sandbox,Write=sandbox`); throws naming the bad entry. */
export function parseToolTaskQueues(text: string, source = 'SUBAGENTS_TOOL_TASK_QUEUES'): ToolTaskQueues {
  const queues: ToolTaskQueues = {};
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)) {
    const separator = entry.indexOf('=');
    if (separator <= 0) throw new Error(`${source}: "${entry}" is not TOOL=QUEUE (for example Bash=sandbox).`);
    const tool = parseRoutableToolName(entry.slice(0, separator).trim(), source);
    queues[tool] = parseTaskQueueName(entry.slice(separator + 1).trim(), source);
  }
  return queues;
}
