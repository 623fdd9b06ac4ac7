import type Anthropic from '@anthropic-ai/sdk';
import type { SdkAgents } from '../shared/agents/sdk-agents';
import type { Client } from '@temporalio/client';
import { resolveAgentCwd } from './agent-cwd';
import { createBoardToolActivities } from './board-tools';
import { allHeartbeating } from './heartbeating';
import { createModelActivities } from './model';
import { RenderedStarts } from './rendered-starts';
import { createPeekActivities } from './peek';
import { createStepProgressActivities } from './step-progress';
import os from 'node:os';
import { createAgentStartActivity } from './prompt/render-agent-start';
import { createResumeActivities, createSpawnContextLoader } from './spawn-context';
import { createRenderSystemPrompt } from './system-prompt';
import { createToolActivities, toolRunners } from './tools';
import type { PreRead } from './pre-reads';
import { createReadBatchActivity } from './tools/read-batch';
import { RunningCalls } from './tools/running-calls';
import type { ShellOptions } from '../config/shell-options';
import { createRewindActivities } from './rewind';
import { createCheckpointActivities } from './checkpoints';
import { createWorktreeActivities } from './worktree';
import { createMcpActivities } from './mcp/activities';
import type { McpConnectionPool } from '../mcp/connection-pool';
import { createWebActivities, type WebToolSettings } from './web';
import { createCustomToolActivities, workerToolsFor } from './custom-tools/activities';
import { createHookActivities } from './hooks/run-hook';
import { createSettingsLook, createSettingsReloadActivities } from './settings-reload';
import { createShellSyntaxActivities } from './shell-syntax/activities';
import type { CustomTool } from '../shared/tools/define-tool';
import type { ToolTaskQueues } from '../shared/tools/custom-tools';
import { countTokensVariable, parseCountTokensSetting, type CountTokensSetting } from '../shared/model/count-tokens';
import { createCountTokensActivities } from './count-tokens';
import { createScriptActivities } from './scripts';
import { createStructuredOutputActivities } from './structured-output';

/** Everything activities need from the outside world. */
export interface ActivityDependencies {
  anthropic: Anthropic;
  temporalClient: Client;
  /** Where oversized tool results are stored. */
  toolResultsDir?: string;
  /** How Bash runs commands (environment allowlist, another user). */
  shell?: ShellOptions;
  /** The user's home: ~/.claude/CLAUDE.md and ~/.claude/agents (default os.homedir(); tests pass a temp dir). */
  homeDir?: string;
  /** The worker's MCP connections (closed when the worker stops). */
  mcpConnections: McpConnectionPool;
  /** WebFetch's private-address allowance and small model. */
  web?: WebToolSettings;
  /** The team's own tools (`defineTool`), each registered as an activity of its name (docs/tools.md, "Custom tools"). */
  customTools?: readonly CustomTool[];
  /** Built-in tools whose activities run on another task queue, told to each agent at its start. */
  toolTaskQueues?: ToolTaskQueues;
  /** Whether budgeted first calls are counted by count_tokens (default: SUBAGENTS_COUNT_TOKENS, else auto). */
  countTokens?: CountTokensSetting;
  /** Claude Agent SDK agent types of the plugin (mapped), merged over file definitions in every agent's roster. */
  sdkAgents?: SdkAgents;
}

/** All activities of the runtime; the worker registers this object, workflows import its type only. */
export function createActivities(dependencies: ActivityDependencies) {
  const homeDir = dependencies.homeDir ?? os.homedir();
  const customTools = dependencies.customTools ?? [];
  const loadSpawnContext = createSpawnContextLoader(homeDir, undefined, dependencies.sdkAgents);
  // A run's first model call on the worker that rendered its start reads the prompt from here, not by query.
  const renderedStarts = new RenderedStarts();
  const runningCalls = new RunningCalls();
  // A model call's leading file reads run with it, under its cancellation; its own heartbeat goes on meanwhile (src/activities/pre-reads.ts).
  const resultsDir = dependencies.toolResultsDir;
  const preRead: PreRead = (tool, input, signal) =>
    toolRunners[tool](input, {
      signal,
      heartbeat: () => undefined,
      ...(resultsDir !== undefined ? { resultsDir } : {}),
    });
  const { callModel, compactConversation, fetchConversation } = createModelActivities({
    ...dependencies,
    renderedStarts,
    runningCalls,
    preRead,
    lookAtSettings: createSettingsLook(homeDir),
  });
  const renderAgentStart = createAgentStartActivity({
    homeDir,
    loadSpawnContext,
    workerTools: (filter) => workerToolsFor(customTools, dependencies.toolTaskQueues, filter),
  });
  // Setup activities heartbeat every second (their heartbeat timeout is short: setupOptions).
  const setup = allHeartbeating({
    renderSystemPrompt: createRenderSystemPrompt(homeDir),
    renderAgentStart: async (input: Parameters<typeof renderAgentStart>[0]) => {
      const start = await renderAgentStart(input);
      renderedStarts.rememberFromActivity(start.systemPrompt);
      return start;
    },
    resolveAgentCwd,
    loadSpawnContext,
    fetchConversation,
    ...createResumeActivities(dependencies.temporalClient),
    ...createPeekActivities(dependencies.temporalClient),
    ...createWorktreeActivities(),
    ...createRewindActivities(dependencies.temporalClient),
    ...createCheckpointActivities(),
  });
  const tools = createToolActivities({
    resultsDir: dependencies.toolResultsDir,
    shell: dependencies.shell,
    runningCalls,
  });
  const runtime = {
    ...setup,
    callModel,
    compactConversation,
    ...tools,
    /** A cancelled agent's tool calls running on this worker, aborted at once (src/activities/tools/running-calls.ts). */
    abortRunningCalls: async ({ agentId }: { agentId: string }): Promise<number> => runningCalls.abort(agentId),
    /** What the running step's activities have output so far, for the stall watchdog (src/workflows/loop/stall-watchdog.ts). */
    ...createStepProgressActivities(dependencies.temporalClient),
    ...createReadBatchActivity(tools.Read),
    ...createHookActivities({
      ...(dependencies.shell ? { shell: dependencies.shell } : {}),
      anthropic: dependencies.anthropic,
      temporalClient: dependencies.temporalClient,
      homeDir,
      ...(dependencies.web?.allowPrivateAddresses
        ? { allowPrivateAddresses: dependencies.web.allowPrivateAddresses }
        : {}),
      ...(dependencies.web?.smallModel ? { smallModel: dependencies.web.smallModel } : {}),
    }),
    ...createSettingsReloadActivities(homeDir),
    ...createShellSyntaxActivities(),
    ...createStructuredOutputActivities(),
    ...createBoardToolActivities(dependencies.temporalClient),
    ...createWebActivities({
      anthropic: dependencies.anthropic,
      settings: dependencies.web,
      resultsDir: dependencies.toolResultsDir,
      temporalClient: dependencies.temporalClient,
    }),
    ...createMcpActivities({ pool: dependencies.mcpConnections, resultsDir: dependencies.toolResultsDir }),
    ...createCountTokensActivities({
      anthropic: dependencies.anthropic,
      setting: dependencies.countTokens ?? parseCountTokensSetting(process.env[countTokensVariable]),
    }),
    ...createScriptActivities({ temporalClient: dependencies.temporalClient, homeDir }),
  };
  checkCustomToolNames(customTools, Object.keys(runtime));
  // Custom tools after the runtime's: the workflow proxies them by name (src/workflows/tools/extra-tools.ts).
  return { ...runtime, ...createCustomToolActivities(customTools, dependencies.toolResultsDir) } as typeof runtime;
}

/** Custom tools may not share a name with each other or with an activity of the runtime (it would replace it). */
export function checkCustomToolNames(tools: readonly CustomTool[], activityNames: readonly string[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (activityNames.includes(tool.name))
      throw new Error(`Custom tool "${tool.name}" has the name of one of the runtime's activities; rename it.`);
    if (seen.has(tool.name)) throw new Error(`Two custom tools are named "${tool.name}"; tool names must be unique.`);
    seen.add(tool.name);
  }
}
