import type Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@temporalio/client';
import { createModelActivities } from './model';
import { createResumeActivities, loadSpawnContext } from './spawn-context';
import { renderSystemPrompt } from './system-prompt';
import { createToolActivities } from './tools';
import { createWorktreeActivities } from './worktree';
import { createMcpActivities } from './mcp/activities';
import type { McpConnectionPool } from './mcp/connection-pool';
import { createWebActivities, type WebToolSettings } from './web';

/** Everything activities need from the outside world. */
export interface ActivityDependencies {
  anthropic: Anthropic;
  temporalClient: Client;
  /** Where oversized tool results are stored. */
  toolResultsDir?: string;
  /** The worker's MCP connections (closed when the worker stops). */
  mcpConnections: McpConnectionPool;
  /** WebFetch's private-address allowance and small model. */
  web?: WebToolSettings;
}

/** All activities of the runtime; the worker registers this object, workflows import its type only. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    renderSystemPrompt,
    loadSpawnContext,
    ...createResumeActivities(dependencies.temporalClient),
    ...createModelActivities(dependencies),
    ...createToolActivities({ resultsDir: dependencies.toolResultsDir }),
    ...createWorktreeActivities(),
    ...createWebActivities({ anthropic: dependencies.anthropic, settings: dependencies.web, resultsDir: dependencies.toolResultsDir }),
    ...createMcpActivities({ pool: dependencies.mcpConnections, resultsDir: dependencies.toolResultsDir }),
  };
}
