// A root agent's workflow input from the client's options, checked before anything starts (docs/api.md).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { rootToolPool } from '../shared/tools/tool-pool';
import { isRuntimeTool } from '../shared/policy/tool-classification';
import { customToolFilterOf, customToolFilterOfList } from '../shared/tools/custom-tools';
import { loadAgentDefinitions } from '../project/agent-definitions/load';
import { loadTrustedMcpConfig, reportUntrustedOnce, untrustedRequiredProblem } from '../project/mcp-trust';
import { agentMcpInput } from '../shared/tools/mcp';
import type { AgentWorkflowInput, PermissionMode } from '../shared/agents/agent';
import type { ThinkingSetting } from '../shared/agents/agent-definition';
import { type EffortLevel, effortLevels, isEffortLevel } from '../shared/agents/effort';
import { buildRootInput } from '../shared/agents/agent-input';
import { boardNameProblem } from '../shared/board/board';
import {
  defaultAgentLimits,
  maxStallTimeoutMs,
  minStallTimeoutMs,
  treeCapsOf,
  type AgentLimits,
} from '../shared/protocol/limits';
import { budgetActions, capsProblem, narrowCaps, type BudgetCaps } from '../shared/budget/budget';
import { defaultTaskQueue } from '../shared/protocol/config';
import { defaultModel, resolveModelAlias } from '../shared/agents/models';
import { workspaceWorker } from '../shared/workspace/workspace-routing';
import type { AgentDefinition as SdkAgentDefinition } from './agent-sdk-definitions';
import { sdkRootParts } from './agent-sdk-options';
import type { CanUseTool } from './can-use-tool';
import { pluginAgentHint } from './plugin-agents';

/** Options of `startAgent`. */
export interface StartAgentOptions {
  prompt: string;
  /** Agent type (default general-purpose). */
  type?: string;
  /** Model id or alias (haiku, sonnet, opus); default the type's model, else claude-sonnet-5. */
  model?: string;
  /** Working directory and workspace root (default process.cwd()). */
  cwd?: string;
  /** Human name, shown in status and usable as an address. */
  name?: string;
  /** Workflow ID to use (default `agent-<random>`). */
  agentId?: string;
  maxTurns?: number;
  permissionMode?: PermissionMode;
  /** Tool pool override (default: the type's tools); names of the worker's custom tools may be listed too. */
  tools?: string[];
  /** Tree limits (depth, concurrency, budget, auto-background threshold); defaults in defaultAgentLimits. */
  limits?: Partial<AgentLimits>;
  /** Overrides ~ when looking for user agent definitions (tests). */
  homeDir?: string;
  /** Keep the agent waiting for the next message after each answer (until closed or idle this long). */
  interactive?: { idleTimeoutMs: number };
  /** max_tokens of each model call (default 32000, Claude Code's default output limit). */
  maxOutputTokens?: number;
  /** Extended thinking for the root's model calls (default: the type's `thinking`, else off); forks inherit it. */
  thinking?: ThinkingSetting;
  /** Effort of the root's model calls (default: the type's `effort`); forks inherit it. */
  effort?: EffortLevel;
  /** A named task board the tree shares with other trees (docs/board.md); default: the tree's own board. */
  taskBoard?: string;
  /** The SUBAGENTS_WORKER_ID holding `cwd` when workers share no filesystem (docs/operations.md). */
  worker?: string;
  /** How long a workspace call waits for that worker before the agent is told it is gone (default 5 min). */
  workerWaitMs?: number;
  /** Claude Agent SDK `agents`: types the whole tree may start (and `type` may name), winning over `.claude/agents` files of the same name (docs/api.md). */
  agents?: Record<string, SdkAgentDefinition>;
  /** Claude Agent SDK `canUseTool`: answers the tree's approval requests until the run ends (`handle.canUseToolWatcher`; docs/api.md). */
  canUseTool?: CanUseTool;
  /** Hooks in Claude Code's settings shape (command handlers), run for the whole tree after the settings files' (docs/hooks.md). */
  hooks?: Record<string, unknown>;
}

/** The real path of a directory that must exist (a root's workspace is its cwd); a clear error otherwise. */
export async function existingDirectory(directory: string, what: string): Promise<string> {
  const stat = await fs.stat(directory).catch(() => undefined);
  if (!stat) throw new Error(`${what} ${directory} does not exist. Give an existing directory (--cwd).`);
  if (!stat.isDirectory()) throw new Error(`${what} ${directory} is not a directory. Give a directory (--cwd).`);
  return fs.realpath(directory);
}

/** What is wrong with the stall watchdog's settings, or undefined (docs/configuration.md). */
export function stallLimitsProblem(limits: Pick<AgentLimits, 'stallTimeoutMs' | 'stallAction'>): string | undefined {
  const { stallTimeoutMs, stallAction } = limits;
  if (
    stallTimeoutMs !== undefined &&
    (!Number.isInteger(stallTimeoutMs) || stallTimeoutMs < minStallTimeoutMs || stallTimeoutMs > maxStallTimeoutMs)
  ) {
    return `stallTimeoutMs must be a whole number of ms from ${minStallTimeoutMs} to ${maxStallTimeoutMs} (got ${JSON.stringify(stallTimeoutMs)}).`;
  }
  if (stallAction !== undefined && stallAction !== 'report' && stallAction !== 'stop')
    return `stallAction must be "report" or "stop" (got ${JSON.stringify(stallAction)}).`;
  return undefined;
}

/** What is wrong with the tree's budget (`limits.budget`, `limits.treeTokenBudget`), or undefined (docs/budgets.md). */
export function budgetLimitsProblem(limits: Pick<AgentLimits, 'budget' | 'treeTokenBudget'>): string | undefined {
  const { budget, treeTokenBudget } = limits;
  if (treeTokenBudget !== undefined && (!Number.isSafeInteger(treeTokenBudget) || treeTokenBudget <= 0)) {
    return `treeTokenBudget must be a positive whole number of tokens (got ${JSON.stringify(treeTokenBudget)}).`;
  }
  if (budget === undefined) return undefined;
  if (
    typeof budget !== 'object' ||
    budget === null ||
    typeof budget.caps !== 'object' ||
    budget.caps === null ||
    Array.isArray(budget.caps)
  ) {
    return 'limits.budget must be { caps: { tokens?, costUsd?, toolCalls?, turns?, wallTimeMs?, concurrentAgents? }, action?: "stop" | "finish" }.';
  }
  const problem = capsProblem(budget.caps);
  if (problem) return `limits.budget: ${problem}`;
  if (budget.action !== undefined && !budgetActions.includes(budget.action)) {
    return `limits.budget.action must be ${budgetActions.map((action) => `"${action}"`).join(' or ')} (got ${JSON.stringify(budget.action)}).`;
  }
  return undefined;
}

/** The tree's limits with the root type's caps folded in, the lower of each: both must hold. */
function withRootTypeCaps(limits: AgentLimits, typeCaps: BudgetCaps | undefined): AgentLimits {
  const treeCaps = treeCapsOf(limits);
  if (!typeCaps || !treeCaps) return limits;
  return { ...limits, budget: { ...limits.budget, caps: { ...treeCaps, ...narrowCaps(typeCaps, treeCaps) } } };
}

/** The workflow input of a root agent, from client options and the agent type (built-in or `.claude/agents`). */
export async function rootAgentInput(
  options: StartAgentOptions,
  taskQueue = defaultTaskQueue,
  pluginAgents?: Record<string, SdkAgentDefinition>,
): Promise<AgentWorkflowInput> {
  const typeName = options.type ?? 'general-purpose';
  if (options.workerWaitMs !== undefined && options.worker === undefined)
    throw new Error('workerWaitMs needs worker: it is how long calls wait for that worker.');
  const placement =
    options.worker === undefined ? undefined : workspaceWorker(taskQueue, options.worker, options.workerWaitMs);
  const cwd = await existingDirectory(path.resolve(options.cwd ?? process.cwd()), 'The working directory');
  const files = await loadAgentDefinitions({ cwd, homeDir: options.homeDir });
  // A type of the client's subagentsPlugin({ agents }) roots a tree as the workers start it as a child: over a file of its name.
  const fromPlugin =
    pluginAgents &&
    Object.hasOwn(pluginAgents, typeName) &&
    !(options.agents && Object.hasOwn(options.agents, typeName))
      ? { [typeName]: pluginAgents[typeName]! }
      : undefined;
  const agents = fromPlugin ? { ...fromPlugin, ...options.agents } : options.agents;
  const sdk = sdkRootParts({ ...options, ...(agents ? { agents } : {}), type: typeName }, files);
  const { definitions, reports } = sdk.loaded;
  const definition = Object.hasOwn(definitions, typeName) ? definitions[typeName] : undefined;
  if (!definition) {
    const skipped = reports.find((report) => report.level === 'skipped' && report.name === typeName);
    throw new Error(
      skipped
        ? `Unknown agent type "${typeName}": ${skipped.file} defines it but was skipped: ${skipped.message}.`
        : `Unknown agent type "${typeName}". Valid types: ${Object.keys(definitions).sort().join(', ')}. ${pluginAgentHint}`,
    );
  }
  const stallProblem = stallLimitsProblem({ ...defaultAgentLimits, ...options.limits });
  if (stallProblem) throw new Error(stallProblem);
  const budgetProblem = budgetLimitsProblem({ ...options.limits });
  if (budgetProblem) throw new Error(`Bad budget: ${budgetProblem}`);
  const limits = withRootTypeCaps({ ...defaultAgentLimits, ...options.limits }, definition.budget);
  const boardProblem = options.taskBoard === undefined ? undefined : boardNameProblem(options.taskBoard);
  if (boardProblem) throw new Error(`Bad task board: ${boardProblem}`);
  const tools = options.tools ? options.tools.filter(isRuntimeTool) : rootToolPool(definition, limits.maxDepth);
  const customTools = options.tools ? customToolFilterOfList(options.tools) : customToolFilterOf(definition);
  if (
    tools.length === 0 &&
    !definition.mcpTools?.length &&
    customTools.allow !== 'all' &&
    customTools.allow.length === 0
  )
    throw new Error(`Agent type "${typeName}" resolves to no tools; fix its tools/disallowedTools.`);
  if (options.effort !== undefined && !isEffortLevel(options.effort)) {
    throw new Error(`Bad effort ${JSON.stringify(options.effort)}: give one of ${effortLevels.join(', ')}.`);
  }
  const mcpConfig = await loadTrustedMcpConfig(cwd, options.homeDir ?? os.homedir());
  const untrustedProblem = untrustedRequiredProblem(definition, mcpConfig.untrusted);
  if (untrustedProblem) throw new Error(untrustedProblem);
  reportUntrustedOnce(mcpConfig.untrusted, (line) => console.warn(`warning: ${line}`));
  const mcp = agentMcpInput(definition, mcpConfig.servers);
  const definitionModel = definition.model && definition.model !== 'inherit' ? definition.model : undefined;
  return buildRootInput({
    agentId: options.agentId ?? `agent-${randomUUID().slice(0, 8)}`,
    agentType: definition.name,
    name: options.name,
    // As Claude Code's `initialPrompt` of a main-thread agent: it opens the first turn, before the user's prompt.
    prompt: sdk.initialPrompt ? `${sdk.initialPrompt}\n\n${options.prompt}` : options.prompt,
    model: resolveModelAlias(options.model ?? definitionModel ?? defaultModel),
    definitionPrompt: definition.prompt,
    tools,
    ...(mcp ? { mcp } : {}),
    customTools,
    cwd,
    workspaceRoot: cwd,
    permissionMode: options.permissionMode ?? definition.permissionMode ?? 'default',
    maxTurns: options.maxTurns ?? definition.maxTurns ?? limits.defaultMaxTurns,
    allowedAgentTypes: definition.allowedAgentTypes,
    ...(definition.readOnlyBash ? { readOnlyBash: true } : {}),
    ...(definition.oneShot ? { oneShot: true } : {}),
    ...((options.thinking ?? definition.thinking) ? { thinking: options.thinking ?? definition.thinking } : {}),
    ...(definition.color ? { color: definition.color } : {}),
    ...((options.effort ?? definition.effort) ? { effort: options.effort ?? definition.effort } : {}),
    ...(definition.toolRules ? { toolRules: definition.toolRules } : {}),
    ...(definition.skills?.length ? { skills: definition.skills } : {}),
    ...(definition.memory ? { memory: definition.memory } : {}),
    ...(definition.hooks ? { definitionHooks: definition.hooks } : {}),
    ...(definition.budget ? { budgetCaps: definition.budget } : {}),
    limits,
    interactive: options.interactive,
    maxOutputTokens: options.maxOutputTokens,
    taskBoard: options.taskBoard,
    ...(placement ? { workspaceWorker: placement } : {}),
    ...(sdk.sdkAgents ? { sdkAgents: sdk.sdkAgents } : {}),
    ...(sdk.sdkHooks ? { sdkHooks: sdk.sdkHooks } : {}),
  });
}
