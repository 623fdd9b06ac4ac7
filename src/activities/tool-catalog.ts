import { rewindToolDefinition } from '../shared/tools/rewind-tool-definition';
import type { ToolDefinition } from '../shared/model/messages';
import { agentToolDefinitions } from '../shared/tools/agent-tool-definitions';
import { boardToolDefinitions } from '../shared/board/board-tool-definitions';
import { taskOutputDefinition } from '../shared/tools/task-output-definition';
import { toolDefinitions } from '../shared/tools/tool-definitions';
import { webToolDefinitions } from '../shared/tools/web-tool-definitions';
import { workflowToolDefinition } from '../shared/tools/workflow-tool-definition';

const catalog: Record<string, ToolDefinition> = {
  ...agentToolDefinitions,
  Rewind: rewindToolDefinition,
  Workflow: workflowToolDefinition([]),
  TaskOutput: taskOutputDefinition,
  ...toolDefinitions,
  ...boardToolDefinitions,
  ...webToolDefinitions,
};

/** The pool's tool definitions in pool order (a stable prefix), then the extra (MCP) tools. */
export function definitionsFor(names: readonly string[], extraTools: readonly ToolDefinition[] = []): ToolDefinition[] {
  return [
    ...names.map((name) => {
      const definition = catalog[name];
      if (!definition)
        throw new Error(`No tool definition for "${name}". Known tools: ${Object.keys(catalog).join(', ')}.`);
      return definition;
    }),
    ...extraTools,
  ];
}
