import type { ToolDefinition } from '../shared/messages';
import { agentToolDefinitions } from '../shared/agent-tool-definitions';
import { boardToolDefinitions } from '../shared/board-tool-definitions';
import { taskOutputDefinition } from '../shared/task-output-definition';
import { toolDefinitions } from '../shared/tool-definitions';
import { webToolDefinitions } from '../shared/web-tool-definitions';

const catalog: Record<string, ToolDefinition> = { ...agentToolDefinitions, TaskOutput: taskOutputDefinition, ...toolDefinitions, ...boardToolDefinitions, ...webToolDefinitions };

/**
 * The model-facing definitions of a pool, in the pool's order (so the request prefix is stable),
 * then the agent's extra tools (MCP) from their descriptors' definitions.
 */
export function definitionsFor(names: readonly string[], extraTools: readonly ToolDefinition[] = []): ToolDefinition[] {
  return [...names.map((name) => {
    const definition = catalog[name];
    if (!definition) throw new Error(`No tool definition for "${name}". Known tools: ${Object.keys(catalog).join(', ')}.`);
    return definition;
  }), ...extraTools];
}
