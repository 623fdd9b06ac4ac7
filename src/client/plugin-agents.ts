// The agents of a subagentsPlugin the client was made with: root types as well as subagent types (docs/api.md).
import type { Client } from '@temporalio/client';
import type { AgentDefinition } from './agent-sdk-definitions';

/** The plugin's name (src/worker/plugin.ts): read by name, so the client never loads the worker's modules. */
export const subagentsPluginName = 'durable-subagents';

/** `subagentsPlugin({ agents })`'s agents, when the client's Temporal Client (or its connection) has that plugin. */
export function pluginAgentsOf(client: Pick<Client, 'options'>): Record<string, AgentDefinition> | undefined {
  const plugins: readonly unknown[] = client.options.plugins ?? [];
  for (const plugin of plugins) {
    const candidate = plugin as { name?: unknown; settings?: { agents?: unknown } };
    if (candidate.name !== subagentsPluginName) continue;
    const agents = candidate.settings?.agents;
    if (typeof agents === 'object' && agents !== null) return agents as Record<string, AgentDefinition>;
  }
  return undefined;
}

/** What to do when a root type is unknown here but may be a worker plugin's agent. */
export const pluginAgentHint =
  "A type defined only in a worker's subagentsPlugin({ agents }) is not visible to this client: make the client's Temporal Client with the same plugin (new Client({ connection, plugins: [subagentsPlugin({ agents })] })), pass it in startAgent's agents, or define it in .claude/agents/<name>.md (the CLI sees only files).";
